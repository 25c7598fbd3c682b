import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        return x + self.net(x)


class AttentionBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)

    def forward(self, x):
        h = self.norm(x)
        return x + self.attn(h, h, h, need_weights=False)[0]


class Model(nn.Module):
    """Encoder / processor / decoder stacks of a gridded forecasting model."""

    def __init__(self, cf):
        super().__init__()
        dim = cf.ae_dim
        self.embed = nn.Linear(cf.num_channels, dim)
        self.ae_local_blocks = nn.ModuleList(
            [AttentionBlock(dim, cf.heads) for _ in range(cf.ae_local_num_blocks)]
        )
        self.ae_global_blocks = nn.ModuleList(
            [AttentionBlock(dim, cf.heads) for _ in range(cf.ae_global_num_blocks)]
        )
        self.fe_blocks = nn.ModuleList([MLP(dim, 4 * dim) for _ in range(cf.fe_num_blocks)])
        self.pred_head = nn.Linear(dim, cf.num_channels)

    def reset_parameters(self):
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.LayerNorm)):
                module.reset_parameters()
            elif isinstance(module, nn.MultiheadAttention):
                module._reset_parameters()

    def forward(self, x, forecast_steps):
        h = self.embed(x)
        for block in self.ae_local_blocks:
            h = block(h)
        for block in self.ae_global_blocks:
            h = block(h)
        for _ in range(forecast_steps):
            for block in self.fe_blocks:
                h = block(h)
        return self.pred_head(h)
