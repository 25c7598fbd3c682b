import random

import torch
import torchaudio
from torch.utils.data import DataLoader, Dataset

from sparse_image_warp import sparse_image_warp


def time_warp(spec, W=5):
    spec = spec.unsqueeze(0)
    num_rows, spec_len = spec.shape[1], spec.shape[2]
    y = num_rows // 2
    point_to_warp = random.randrange(W, spec_len - W)
    dist_to_warp = random.randrange(-W, W)
    src = torch.tensor([[[y, point_to_warp]]])
    dst = torch.tensor([[[y, point_to_warp + dist_to_warp]]])
    warped, _ = sparse_image_warp(spec, src, dst)
    return warped.squeeze(0)


def freq_mask(spec, F=15):
    f = random.randrange(0, F)
    f0 = random.randrange(0, spec.shape[0] - f)
    spec = spec.clone()
    spec[f0:f0 + f] = spec.mean()
    return spec


class SpectrogramDataset(Dataset):
    def __init__(self, manifest, labels, spec_augment=False):
        self.ids = [line.strip().split(",") for line in open(manifest)]
        self.labels_map = {c: i for i, c in enumerate(labels)}
        self.spec_augment = spec_augment
        self.melspec = torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_mels=80)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, index):
        audio_path, transcript = self.ids[index]
        waveform, _ = torchaudio.load(audio_path)
        spec = torch.log1p(self.melspec(waveform).squeeze(0))
        if self.spec_augment:
            spec = freq_mask(time_warp(spec))
        target = [self.labels_map[c] for c in transcript.upper() if c in self.labels_map]
        return spec, torch.tensor(target)


def collate(batch):
    specs, targets = zip(*batch)
    lengths = torch.tensor([s.shape[1] for s in specs])
    padded = torch.nn.utils.rnn.pad_sequence([s.t() for s in specs], batch_first=True)
    return padded.transpose(1, 2), lengths, torch.cat(targets), torch.tensor([len(t) for t in targets])


def build_loader(manifest, labels, batch_size=32):
    dataset = SpectrogramDataset(manifest, labels, spec_augment=True)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=4, collate_fn=collate)
