import lightning.pytorch as pl
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from base_model import BaseModel


class WindowDataset(Dataset):
    def __init__(self, series: torch.Tensor, encoder_length=48, decoder_length=12):
        self.series = series
        self.enc = encoder_length
        self.dec = decoder_length

    def __len__(self):
        return len(self.series) - self.enc - self.dec

    def __getitem__(self, idx):
        window = self.series[idx: idx + self.enc + self.dec]
        x = {
            "encoder_target": window[: self.enc],
            "decoder_lengths": torch.tensor(self.dec),
        }
        return x, window[self.enc:]


class MLPForecaster(BaseModel):
    def __init__(self, encoder_length=48, decoder_length=12, hidden_size=64, **kwargs):
        super().__init__(**kwargs)
        self.net = nn.Sequential(
            nn.Linear(encoder_length, hidden_size), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(hidden_size, decoder_length),
        )

    def forward(self, x):
        return {"prediction": self.net(x["encoder_target"])}


def main():
    series = torch.sin(torch.linspace(0, 200, 20000)) + 0.1 * torch.randn(20000)
    train_loader = DataLoader(WindowDataset(series[:16000]), batch_size=128, shuffle=True)
    val_loader = DataLoader(WindowDataset(series[16000:]), batch_size=256)
    model = MLPForecaster(learning_rate=3e-3)
    trainer = pl.Trainer(max_epochs=30, accelerator="auto", gradient_clip_val=0.1)
    trainer.fit(model, train_loader, val_loader)


if __name__ == "__main__":
    main()
