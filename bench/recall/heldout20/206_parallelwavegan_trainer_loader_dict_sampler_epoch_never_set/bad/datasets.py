import torch
from torch.utils.data import Dataset


class AudioMelDataset(Dataset):
    """Stand-in for the dumped (audio, mel) pairs."""

    def __init__(self, size=200, frames=40, hop_size=256, num_mels=80):
        self.size, self.frames, self.hop_size, self.num_mels = size, frames, hop_size, num_mels

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(index)
        audio = torch.rand(self.frames * self.hop_size, generator=g) * 2 - 1
        mel = torch.randn(self.frames, self.num_mels, generator=g)
        return audio, mel


class Collater(object):
    def __init__(self, batch_max_steps=10240, hop_size=256):
        self.batch_max_frames = batch_max_steps // hop_size
        self.hop_size = hop_size

    def __call__(self, batch):
        ys, cs = [], []
        for audio, mel in batch:
            start = torch.randint(0, mel.shape[0] - self.batch_max_frames + 1, (1,)).item()
            cs.append(mel[start:start + self.batch_max_frames])
            ys.append(audio[start * self.hop_size:(start + self.batch_max_frames) * self.hop_size])
        y = torch.stack(ys).unsqueeze(1)
        c = torch.stack(cs).transpose(1, 2)
        z = torch.randn_like(y)
        return (z, c), y
