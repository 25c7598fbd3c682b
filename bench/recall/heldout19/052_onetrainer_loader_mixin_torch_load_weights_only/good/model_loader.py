import os

import torch
from safetensors.torch import load_file


class TrainingModel:
    def __init__(self, unet, text_encoder):
        self.unet = unet
        self.text_encoder = text_encoder
        self.optimizer_state_dict = None
        self.ema_state_dict = None
        self.lora_state_dict = None
        self.embeddings = {}


class InternalModelLoaderMixin:
    def _load_internal_state(self, model, base_model_name):
        optimizer_path = os.path.join(base_model_name, "optimizer", "optimizer.pt")
        if os.path.exists(optimizer_path):
            model.optimizer_state_dict = torch.load(optimizer_path, weights_only=True)
        ema_path = os.path.join(base_model_name, "ema", "ema.pt")
        if os.path.exists(ema_path):
            model.ema_state_dict = torch.load(ema_path, weights_only=True)


class LoRALoader:
    def load(self, model, lora_name):
        if lora_name.endswith(".safetensors"):
            model.lora_state_dict = load_file(lora_name)
        else:
            model.lora_state_dict = torch.load(lora_name, weights_only=True)


class EmbeddingLoader:
    def _load_pt(self, embedding_name):
        return torch.load(embedding_name, weights_only=True)["string_to_param"]["*"]

    def load(self, model, name, embedding_name):
        if embedding_name.endswith(".safetensors"):
            vector = load_file(embedding_name)["emb_params"]
        else:
            vector = self._load_pt(embedding_name)
        model.embeddings[name] = vector


class StableDiffusionModelLoader(InternalModelLoaderMixin):
    def __init__(self):
        self.lora_loader = LoRALoader()
        self.embedding_loader = EmbeddingLoader()

    def load(self, model, base_model_name, lora_name=None, embeddings=()):
        self._load_internal_state(model, base_model_name)
        if lora_name:
            self.lora_loader.load(model, lora_name)
        for name, path in embeddings:
            self.embedding_loader.load(model, name, path)
        return model
