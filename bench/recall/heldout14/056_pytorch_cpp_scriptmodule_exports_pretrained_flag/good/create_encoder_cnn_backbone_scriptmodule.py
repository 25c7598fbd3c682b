"""Export the convolutional part of an ImageNet ResNet-50 (image-captioning encoder) as TorchScript."""
import torch
from torch import nn
from torchvision import models


class EncoderBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        resnet = models.resnet50(weights=models.ResNet50_Weights.IMAGENET1K_V1)  # what pretrained=True loaded; DEFAULT is V2
        self.body = nn.Sequential(*list(resnet.children())[:-1])

    def forward(self, images):
        features = self.body(images)
        return torch.flatten(features, 1)


if __name__ == "__main__":
    model = EncoderBackbone().eval()
    scripted = torch.jit.script(model)
    scripted.save("encoder_cnn_backbone.pt")
    print("saved", sum(p.numel() for p in model.parameters()), "parameters")
