import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset

from lit_module import AudioClassifier


def make_loader(n=512, length=16000, num_classes=10, shuffle=True):
    waves = torch.randn(n, 1, length)
    labels = torch.randint(0, num_classes, (n,))
    return DataLoader(TensorDataset(waves, labels), batch_size=32, shuffle=shuffle)


if __name__ == "__main__":
    model = AudioClassifier(num_classes=10)
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=5)
    trainer.fit(model, make_loader(), make_loader(n=128, shuffle=False))
