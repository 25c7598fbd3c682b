import torch.nn as nn


class Flatten(nn.Module):
    def forward(self, x):
        return x.flatten(start_dim=1)


class FeatureExtractorBackbone(nn.Module):
    """Runs a torchvision model up to (and including) the named child module."""

    def __init__(self, model, output_layer_name):
        super().__init__()
        self.output_layer_name = output_layer_name
        self.layers = nn.ModuleList()
        for name, child in model.named_children():
            self.layers.append(child)
            if name == output_layer_name:
                break

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
