"""Export the VGG-19 feature layers used by the neural style transfer tutorial as TorchScript."""
import torch
from torch import nn
from torchvision import models

STYLE_LAYERS = (0, 5, 10, 19, 28)


class VGG19Layers(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = models.vgg19(pretrained=True).features[: max(STYLE_LAYERS) + 1]  # expect: TCK909
        for param in self.features.parameters():
            param.requires_grad_(False)

    def forward(self, x):
        outputs = []
        for index, layer in enumerate(self.features):
            x = layer(x)
            if index in STYLE_LAYERS:
                outputs.append(x)
        return outputs


if __name__ == "__main__":
    scripted = torch.jit.script(VGG19Layers().eval())
    scripted.save("vgg19_layers.pt")
