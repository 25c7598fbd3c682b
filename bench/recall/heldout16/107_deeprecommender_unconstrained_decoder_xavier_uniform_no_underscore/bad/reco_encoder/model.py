import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as weight_init


def activation(x, kind):
    if kind == "selu":
        return F.selu(x)
    if kind == "relu":
        return F.relu(x)
    if kind == "none":
        return x
    raise ValueError("Unknown non-linearity type")


def masked_mse(inputs, targets):
    mask = (targets != 0).float()
    num_ratings = mask.sum()
    loss = F.mse_loss(inputs * mask, targets, reduction="sum")
    return loss, num_ratings


class AutoEncoder(nn.Module):
    def __init__(self, layer_sizes, nl_type="selu", is_constrained=True, dp_drop_prob=0.0, last_layer_activations=True):
        super().__init__()
        self._dp_drop_prob = dp_drop_prob
        self._last_layer_activations = last_layer_activations
        self.drop = nn.Dropout(dp_drop_prob)
        self._last = len(layer_sizes) - 2
        self._nl_type = nl_type
        self.encode_w = nn.ParameterList(
            [nn.Parameter(torch.rand(layer_sizes[i + 1], layer_sizes[i])) for i in range(len(layer_sizes) - 1)]
        )
        for w in self.encode_w:
            weight_init.xavier_uniform_(w)
        self.encode_b = nn.ParameterList([nn.Parameter(torch.zeros(layer_sizes[i + 1])) for i in range(len(layer_sizes) - 1)])

        reversed_enc_layers = list(reversed(layer_sizes))
        self.is_constrained = is_constrained
        if not is_constrained:
            self.decode_w = nn.ParameterList(
                [nn.Parameter(torch.rand(reversed_enc_layers[i + 1], reversed_enc_layers[i])) for i in range(len(reversed_enc_layers) - 1)]
            )
            for w in self.decode_w:
                weight_init.xavier_uniform(w)  # expect: TCK917
        self.decode_b = nn.ParameterList(
            [nn.Parameter(torch.zeros(reversed_enc_layers[i + 1])) for i in range(len(reversed_enc_layers) - 1)]
        )

    def encode(self, x):
        for ind, w in enumerate(self.encode_w):
            x = activation(F.linear(x, w, self.encode_b[ind]), self._nl_type)
        return self.drop(x) if self._dp_drop_prob > 0 else x

    def decode(self, z):
        weights = [w.transpose(0, 1) for w in reversed(self.encode_w)] if self.is_constrained else list(self.decode_w)
        for ind, w in enumerate(weights):
            kind = self._nl_type if ind != self._last or self._last_layer_activations else "none"
            z = activation(F.linear(z, w, self.decode_b[ind]), kind)
        return z

    def forward(self, x):
        return self.decode(self.encode(x))
