"""Train AlignTTS with the generic Trainer; `distribute.py` starts one copy per GPU with --rank."""
import argparse
from types import SimpleNamespace

import torch
from torch.utils.data import Dataset

from TTS.trainer import Trainer
from TTS.tts.models.align_tts import AlignTTS


class ToyTTSDataset(Dataset):
    def __init__(self, n=512):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        text = torch.randint(1, 130, (40,), generator=g)
        return {"text": text, "text_lengths": torch.tensor(40), "mel": torch.randn(60, 80, generator=g)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rank", type=int, default=0)
    parser.add_argument("--output_path", default="output/")
    args = parser.parse_args()
    config = SimpleNamespace(lr=1e-3, batch_size=32, epochs=100, grad_clip=5.0, mixed_precision=True, print_step=25)
    trainer = Trainer(args, config, args.output_path, AlignTTS(), ToyTTSDataset())
    trainer.fit()


if __name__ == "__main__":
    main()
