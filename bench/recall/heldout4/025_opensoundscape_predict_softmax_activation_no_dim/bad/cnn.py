import torch
import torch.nn.functional as F


def apply_activation_layer(x, activation_layer=None):
    if activation_layer is None:
        return x
    elif activation_layer == "softmax":
        return F.softmax(x)  # expect: TCK608
    elif activation_layer == "sigmoid":
        return torch.sigmoid(x)
    raise ValueError(activation_layer)


def predict(network, dataloader, activation_layer=None):
    network.eval()
    scores = []
    with torch.no_grad():
        for batch in dataloader:
            scores.append(apply_activation_layer(network(batch), activation_layer).cpu())
    return torch.cat(scores)
