import torch
import torch.nn as nn


class TemporalBlock(nn.Module):
    def __init__(self, channels, max_len=32):
        super().__init__()
        self.norm = nn.GroupNorm(8, channels)
        self.attn = nn.MultiheadAttention(channels, 4, batch_first=True)
        self.register_buffer("pe", torch.zeros(1, max_len, channels))

    def forward(self, x):
        b, c, f, h, w = x.shape
        t = self.norm(x).permute(0, 3, 4, 2, 1).reshape(b * h * w, f, c) + self.pe[:, :f]
        t, _ = self.attn(t, t, t)
        return x + t.reshape(b, h, w, f, c).permute(0, 4, 3, 1, 2)


class UNet3DConditionModel(nn.Module):
    def __init__(self, in_channels=9, channels=64, max_len=32):
        super().__init__()
        self.conv_in = nn.Conv3d(in_channels, channels, (1, 3, 3), padding=(0, 1, 1))
        self.motion_modules = nn.ModuleList([TemporalBlock(channels, max_len) for _ in range(2)])
        self.image_proj_model = nn.Linear(1024, 4 * 768)
        self.conv_out = nn.Conv3d(channels, 4, (1, 3, 3), padding=(0, 1, 1))

    def forward(self, sample, timestep, encoder_hidden_states=None):
        x = self.conv_in(sample)
        for block in self.motion_modules:
            x = block(x)
        return self.conv_out(x)
