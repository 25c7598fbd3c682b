import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as weight_init


def activation(x, kind):
    if kind == "selu":
        return F.selu(x)
    if kind == "relu":
        return F.relu(x)
    if kind == "sigmoid":
        return torch.sigmoid(x)
    if kind == "none":
        return x
    raise ValueError(f"Unknown non-linearity type {kind}")


def MSEloss(inputs, targets, size_average=False):
    """Masked MSE over observed ratings only (zeros are missing entries)."""
    mask = targets != 0
    num_ratings = torch.sum(mask.float())
    criterion = nn.MSELoss(reduction="mean" if size_average else "sum")
    loss = criterion(inputs * mask.float(), targets)
    return loss, (torch.ones(1) if size_average else num_ratings)


class AutoEncoder(nn.Module):
    def __init__(self, layer_sizes, nl_type="selu", is_constrained=True, dp_drop_prob=0.0):
        super().__init__()
        self._nl_type = nl_type
        self._last = len(layer_sizes) - 2
        self._dp_drop_prob = dp_drop_prob
        if dp_drop_prob > 0:
            self.drop = nn.Dropout(dp_drop_prob)
        self.encode_w = nn.ParameterList(
            [nn.Parameter(torch.empty(layer_sizes[i + 1], layer_sizes[i])) for i in range(len(layer_sizes) - 1)]
        )
        for w in self.encode_w:
            weight_init.xavier_uniform_(w)
        self.encode_b = nn.ParameterList(
            [nn.Parameter(torch.zeros(layer_sizes[i + 1])) for i in range(len(layer_sizes) - 1)]
        )
        reversed_sizes = list(reversed(layer_sizes))
        self.is_constrained = is_constrained
        if not is_constrained:
            self.decode_w = nn.ParameterList(
                [nn.Parameter(torch.empty(reversed_sizes[i + 1], reversed_sizes[i])) for i in range(len(reversed_sizes) - 1)]
            )
            for w in self.decode_w:
                weight_init.xavier_uniform_(w)
        self.decode_b = nn.ParameterList(
            [nn.Parameter(torch.zeros(reversed_sizes[i + 1])) for i in range(len(reversed_sizes) - 1)]
        )

    def encode(self, x):
        for ind, w in enumerate(self.encode_w):
            x = activation(F.linear(x, w, self.encode_b[ind]), self._nl_type)
        if self._dp_drop_prob > 0:
            x = self.drop(x)
        return x

    def decode(self, z):
        weights = [w.t() for w in reversed(self.encode_w)] if self.is_constrained else list(self.decode_w)
        for ind, w in enumerate(weights):
            kind = self._nl_type if ind != self._last else "none"
            z = activation(F.linear(z, w, self.decode_b[ind]), kind)
        return z

    def forward(self, x):
        return self.decode(self.encode(x))
