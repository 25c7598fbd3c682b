import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from sentence_transformers import SentenceTransformer


class TextFeatureExtractor(nn.Module):
    """Turns a caption into one feature map per FPN level of the image backbone."""

    def __init__(self, embed_dim, expected_output_shape, fpn_keys, device, interpolation_mode="bilinear"):
        super().__init__()
        self.expected_output_shape = tuple(expected_output_shape)
        self.fpn_keys = list(fpn_keys)
        self.interpolation_mode = interpolation_mode
        self.device = device
        self.model = SentenceTransformer("all-MiniLM-L6-v2")

        self.remapper = nn.Sequential(
            nn.Linear(embed_dim, math.prod(self.expected_output_shape), device=device),
            nn.LeakyReLU(),
        )

        n_levels = len(self.fpn_keys)
        self.fpn_convs = {}  # expect: TCK601
        for i, key in enumerate(self.fpn_keys[:-1]):
            scale = 2 ** (n_levels - i - 1)
            self.fpn_convs[key] = nn.ConvTranspose2d(1, 1, kernel_size=scale, stride=scale, device=device)

    def forward(self, captions, feature_shapes):
        feats = torch.zeros((len(captions),) + self.expected_output_shape, device=self.device)
        for i, text in enumerate(captions):
            emb = self.model.encode(text, convert_to_tensor=True).to(self.device)
            feats[i] = self.remapper(emb).view(self.expected_output_shape)
        return self.build_pyramid(feats, feature_shapes)

    def build_pyramid(self, feats, feature_shapes):
        out = {k: torch.zeros(v, device=self.device) for k, v in feature_shapes.items()}
        for i in range(feats.shape[0]):
            for key in self.fpn_keys:
                size = (feature_shapes[key][-2], feature_shapes[key][-1])
                if key in self.fpn_convs:
                    up = self.fpn_convs[key](feats[i].unsqueeze(1))
                    out[key][i] = F.interpolate(up, size=size, mode=self.interpolation_mode)[:, 0]
                else:
                    out[key][i] = F.interpolate(feats[i].unsqueeze(0), size=size, mode=self.interpolation_mode)
        return out
