import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import Dataset

from .ae.trainer import AutoencoderTrainer


class ConvAutoencoder(nn.Module):
    def __init__(self, channels=64, kernel=1024, stride=256):
        super().__init__()
        self.strip = kernel - stride
        self.encoder = nn.Sequential(nn.Conv1d(1, channels, kernel, stride), nn.ReLU(), nn.Conv1d(channels, channels, 1))
        self.decoder = nn.Sequential(nn.ReLU(), nn.ConvTranspose1d(channels, 1, kernel, stride))

    def forward(self, wav):
        rebuilt = self.decoder(self.encoder(wav.unsqueeze(1))).squeeze(1)
        return rebuilt[..., self.strip:-self.strip]


class NotesDataset(Dataset):
    """Four-second notes at 16 kHz (stand-in for the NSynth loader)."""

    def __init__(self, size, length=64000):
        self.size = size
        self.length = length

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        return {"wav": torch.rand(self.length, generator=g) * 2 - 1}


def main():
    parser = argparse.ArgumentParser("sing.train")
    parser.add_argument("--parallel", action="store_true", help="Use multiple gpus (launch with torchrun)")
    parser.add_argument("--ae-epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--checkpoint", default="ae.ckpt")
    args = parser.parse_args()

    local_rank = 0
    if args.parallel:
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        local_rank = int(os.environ["LOCAL_RANK"])
        if torch.cuda.is_available():
            torch.cuda.set_device(local_rank)

    model = ConvAutoencoder()
    trainer = AutoencoderTrainer(
        model=model,
        train_loss=nn.L1Loss(),
        eval_losses={"l1": nn.L1Loss(), "mse": nn.MSELoss()},
        train_dataset=NotesDataset(4096),
        eval_datasets={"valid": NotesDataset(256)},
        epochs=args.ae_epochs,
        batch_size=args.batch_size,
        cuda=torch.cuda.is_available(),
        parallel=args.parallel,
        lr=args.lr,
        checkpoint_path=args.checkpoint,
        local_rank=local_rank,
    )
    trainer.train()
    if args.parallel:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
