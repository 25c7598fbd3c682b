import torch
from torch import nn
from torch.nn.utils import weight_norm  # expect: TCK904


class MLP(nn.Module):
    def __init__(self, inp_dim=2, num_layers=3, num_channels=128, out_dim=2, use_wn=True, skip_layers=()):
        super().__init__()
        self.skip_layers = list(skip_layers)
        wn = weight_norm if use_wn else (lambda module, **kwargs: module)
        layers = [nn.Identity()]
        for i in range(num_layers):
            cur_inp = inp_dim if i == 0 else num_channels
            cur_out = out_dim if i == num_layers - 1 else num_channels
            if i in self.skip_layers:
                cur_inp += inp_dim
            layers.append(wn(nn.Linear(cur_inp, cur_out), name="weight"))
            layers.append(nn.LeakyReLU(0.2))
        layers[-1] = nn.Identity()
        self.model = nn.ModuleList(layers)

    def forward(self, x):
        skips = [i * 2 + 1 for i in self.skip_layers]
        inp = x
        for i, layer in enumerate(self.model):
            if i in skips:
                x = torch.cat([x, inp], dim=-1)
            x = layer(x)
        return x
