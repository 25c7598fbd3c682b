import json

import torch

from llama_transformer import ModelArgs, Transformer


class Llama2Model:
    def __init__(self, checkpoint_path, params_path, use_kv_cache=False):
        device = "cpu"
        checkpoint = torch.load(checkpoint_path, map_location=device, mmap=True, weights_only=True)
        with open(params_path, "r") as f:
            params = json.loads(f.read())
        model_args = ModelArgs(max_seq_len=128, max_batch_size=1, use_kv_cache=use_kv_cache, **params)
        with torch.device("meta"):
            self.model_ = Transformer(model_args)
        self.model_.load_state_dict(checkpoint, strict=True, assign=True)

    def get_eager_model(self):
        return self.model_
