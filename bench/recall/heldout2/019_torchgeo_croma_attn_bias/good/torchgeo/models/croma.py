import itertools
import math

import torch
from torch import nn


def get_2dalibi(num_heads, num_patches):
    points = list(itertools.product(range(int(math.sqrt(num_patches))), range(int(math.sqrt(num_patches)))))
    ratio = 2 ** (-8 / num_heads)
    slopes = torch.tensor([ratio ** (i + 1) for i in range(num_heads)]).unsqueeze(1)
    idxs = []
    for p1 in points:
        for p2 in points:
            idxs.append(math.sqrt((p1[0] - p2[0]) ** 2 + (p1[1] - p2[1]) ** 2))
    all_bias = torch.tensor(idxs).view(1, num_patches, num_patches) * slopes.unsqueeze(-1) * -1
    return all_bias.unsqueeze(0)


class CROMA(nn.Module):
    def __init__(self, encoder_dim=768, num_heads=16, image_size=120, patch_size=8):
        super().__init__()
        self.num_patches = (image_size // patch_size) ** 2
        self.s1_encoder = nn.Linear(2 * patch_size * patch_size, encoder_dim)
        self.s2_encoder = nn.Linear(12 * patch_size * patch_size, encoder_dim)
        self.register_buffer("attn_bias", get_2dalibi(num_heads=num_heads, num_patches=self.num_patches), persistent=False)

    def forward(self, x_sar, x_optical):
        return self.s1_encoder(x_sar) + self.attn_bias.mean(), self.s2_encoder(x_optical)
