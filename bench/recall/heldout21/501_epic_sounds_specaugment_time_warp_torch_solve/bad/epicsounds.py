import torch
import torch.utils.data

from spec_augment import combined_transforms


class EpicSounds(torch.utils.data.Dataset):
    """Audio-action clips as log-mel spectrograms; SpecAugment only for training."""

    def __init__(self, cfg, mode):
        self.cfg = cfg
        self.mode = mode
        self.clips = self._load_annotations()

    def _load_annotations(self):
        n = 64 if self.mode == "train" else 16
        return [(torch.randn(self.cfg["n_mels"], self.cfg["frames"]), i % self.cfg["num_classes"]) for i in range(n)]

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, index):
        spectrogram, label = self.clips[index]
        spectrogram = spectrogram.unsqueeze(0)
        if self.mode == "train":
            spectrogram = combined_transforms(spectrogram)
        return spectrogram, label


def construct_loader(cfg, split):
    dataset = EpicSounds(cfg, split)
    return torch.utils.data.DataLoader(
        dataset,
        batch_size=cfg["batch_size"],
        shuffle=(split == "train"),
        num_workers=cfg["num_workers"],
        pin_memory=True,
        drop_last=(split == "train"),
    )
