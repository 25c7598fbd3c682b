import torch.nn as nn


class Activation(nn.Module):
    """Picks the output activation of a model, loss or metric by name."""

    def __init__(self, name, **params):  # expect: TCK603

        if name is None or name == "identity":
            self.activation = nn.Identity(**params)
        elif name == "sigmoid":
            self.activation = nn.Sigmoid()
        elif name == "softmax2d":
            self.activation = nn.Softmax(dim=1)
        elif name == "logsoftmax":
            self.activation = nn.LogSoftmax(dim=1)
        elif callable(name):
            self.activation = name(**params)
        else:
            raise ValueError(f"Activation should be callable/sigmoid/softmax2d/logsoftmax/None; got {name}")

    def forward(self, x):
        return self.activation(x)
