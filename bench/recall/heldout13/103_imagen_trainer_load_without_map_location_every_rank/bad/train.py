import os

import torch
from torch.utils.data import DataLoader, TensorDataset

from trainer import ImagenTrainer
from unet import Imagen, Unet

CKPT = "./checkpoints/imagen.pt"


def main():
    imagen = Imagen(Unet(dim=64))
    trainer = ImagenTrainer(imagen, lr=1e-4)
    if os.path.exists(CKPT):
        trainer.load(CKPT)

    images = torch.rand(512, 3, 32, 32) * 2 - 1
    loader = DataLoader(TensorDataset(images), batch_size=32, shuffle=True, num_workers=4)
    loader = trainer.accelerator.prepare(loader)

    for epoch in range(100):
        for (batch,) in loader:
            loss = trainer.train_step(batch)
        if trainer.is_main:
            print(f"epoch {epoch} loss {loss:.4f}")
        trainer.accelerator.wait_for_everyone()
        trainer.save(CKPT)


if __name__ == "__main__":
    main()
