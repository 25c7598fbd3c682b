import torch
import torch.nn as nn


class ConditionalDecoder(nn.Module):
    """U-Net style velocity estimator of the flow-matching decoder (heavily reduced)."""

    def __init__(self, in_channels=320, out_channels=80, channels=(256, 256)):
        super().__init__()
        self.static_chunk_size = 0
        self.time_mlp = nn.Sequential(nn.Linear(1, channels[0]), nn.SiLU(), nn.Linear(channels[0], channels[0]))
        self.down = nn.Conv1d(in_channels, channels[0], 3, padding=1)
        self.mid = nn.Conv1d(channels[0], channels[1], 3, padding=1)
        self.final_proj = nn.Conv1d(channels[1], out_channels, 1)

    def forward(self, x, mask, mu, t, spks=None, cond=None):
        h = torch.cat([x, mu, spks.unsqueeze(-1).expand_as(x), cond], dim=1)
        h = self.down(h * mask) + self.time_mlp(t.view(-1, 1)).unsqueeze(-1)
        h = torch.relu(self.mid(h * mask))
        return self.final_proj(h * mask) * mask
