import random

import numpy as np
import torch
import torch.nn as nn


class PadCrop(nn.Module):
    def __init__(self, n_samples, randomize=True):
        super().__init__()
        self.n_samples = n_samples
        self.randomize = randomize

    def __call__(self, signal):
        n, s = signal.shape
        start = 0 if not self.randomize else torch.randint(0, max(0, s - self.n_samples) + 1, []).item()
        chunk = signal.new_zeros([n, self.n_samples])
        piece = signal[:, start:start + self.n_samples]
        chunk[:, : piece.shape[1]] = piece
        return chunk


class PhaseFlipper(nn.Module):
    "randomly inverts the waveform"

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def __call__(self, signal):
        return -signal if random.random() < self.p else signal


class RandPool(nn.Module):
    def __init__(self, p=0.2):
        super().__init__()
        self.p, self.maxkern = p, 100

    def __call__(self, signal):
        if random.random() < self.p:
            ksize = max(1, int(random.random() * self.maxkern))
            avger = nn.AvgPool1d(kernel_size=ksize, stride=1, padding=ksize // 2)
            return avger(signal)[..., : signal.shape[-1]]
        return signal


def smoothstep(x, edge0=0.4, edge1=0.6):
    "s-shaped ramp: 0 left of edge0, 1 right of edge1"
    x = ((x - edge0) / (edge1 - edge0)).clamp(0, 1)
    return x * x * (3 - 2 * x)


def smoothstep_box(coords, edges=(0.2, 0.3, 0.5, 0.6)):
    "a flat region of zeros that rises smoothly to ones on both sides"
    right = smoothstep(coords, edge0=edges[2], edge1=edges[3])
    left = 1 - smoothstep(coords, edge0=edges[0], edge1=edges[1])
    return left + right


class RandMask1D(nn.Module):
    def __init__(
        self,
        mask_frac=0.25,      # fraction of the input to mask (sets the number of masked regions)
        mask_width=0.1,      # fraction of the length (float < 1) or exact width in samples of each region
        mask_type="simple",  # 'simple' = hard edges, 'smoothstep' = soft edges
        edge_width=0.2,      # for 'smoothstep': fraction or number of samples of each soft edge
        verbose=False,
    ):
        "Cuts masked regions ('cutout') out of 1D signals, with hard or smooth edges"
        super().__init__()
        if mask_width < 1:
            self.mask_width_frac = mask_width
        self.mask_frac, self.mask_width, self.mask_type = mask_frac, mask_width, mask_type
        self.edge_width, self.verbose = edge_width, verbose
        self.mask = None  # built once, on the first forward()

    def make_single_mask(self, x, min_val=0):
        n = x.shape[-1]
        self.mask = torch.ones(n)
        start = max(0, (n - self.mask_width) // 2)
        end = min(start + self.mask_width, n)
        if self.mask_type == "simple":
            self.mask[start:end] = min_val
        elif self.mask_type == "smoothstep":
            coords = torch.linspace(0, 1, steps=n)
            ew = self.edge_width if isinstance(self.edge_width, int) else int((end - start) * self.edge_width)
            self.mask = smoothstep_box(coords, edges=[coords[i] for i in (start, start + ew, end - ew, end - 1)])
        else:
            raise ValueError(f"unsupported mask type: {self.mask_type!r}")

    def mask_once_1channel(self, xc):
        shift_by = int((2 * np.random.rand() - 1) * xc.shape[-1])
        return xc * torch.roll(self.mask, shift_by, -1).to(xc.device)

    def forward(self, x):
        if self.mask is None:
            if isinstance(self.mask_width, float):
                self.mask_width = int(x.shape[-1] * self.mask_width_frac)
            self.make_single_mask(x)
            self.n_masks = int(self.mask_frac * x.shape[-1] / self.mask_width)
            if self.verbose:
                print("mask_width, n_masks =", self.mask_width, self.n_masks)
        assert x.dim() >= 3, f"expected [batch, channels, samples], got {tuple(x.shape)}"
        out = x.clone()
        for bi in range(x.shape[0]):
            for c in range(x.shape[1]):
                for _ in range(self.n_masks):
                    out[bi, c, :] = self.mask_once_1channel(out[bi, c, :])
        return out
