from pathlib import Path

import torch
import torch.nn as nn
from accelerate import Accelerator

from unet import Imagen


class ImagenTrainer(nn.Module):
    def __init__(self, imagen: Imagen, lr=1e-4, fp16=True):
        super().__init__()
        self.accelerator = Accelerator(mixed_precision="fp16" if fp16 else "no")
        self.imagen = imagen
        self.optimizer = torch.optim.Adam(imagen.parameters(), lr=lr, betas=(0.9, 0.99))
        self.register_buffer("steps", torch.tensor([0]))
        self.imagen, self.optimizer = self.accelerator.prepare(self.imagen, self.optimizer)
        self.to(self.accelerator.device)

    @property
    def is_main(self):
        return self.accelerator.is_main_process

    @property
    def device(self):
        return self.accelerator.device

    def unwrapped(self):
        return self.accelerator.unwrap_model(self.imagen)

    def save(self, path, overwrite=True):
        if not self.accelerator.is_main_process:
            return
        path = Path(path)
        assert overwrite or not path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        save_obj = dict(
            model=self.unwrapped().state_dict(),
            optimizer=self.optimizer.state_dict(),
            steps=self.steps,
        )
        torch.save(save_obj, str(path))

    def load(self, path, only_model=False, strict=True):
        path = Path(path)
        assert path.exists()
        # load to CPU first: every process runs this, and the file holds cuda:0 tensors
        loaded_obj = torch.load(str(path), map_location="cpu", weights_only=True)
        self.unwrapped().load_state_dict(loaded_obj["model"], strict=strict)
        self.steps.copy_(loaded_obj["steps"])
        if not only_model:
            self.optimizer.load_state_dict(loaded_obj["optimizer"])
        return loaded_obj

    def train_step(self, images):
        self.imagen.train()
        with self.accelerator.autocast():
            loss = self.imagen(images.to(self.device))
        self.accelerator.backward(loss)
        self.accelerator.clip_grad_norm_(self.imagen.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.steps += 1
        return loss.item()
