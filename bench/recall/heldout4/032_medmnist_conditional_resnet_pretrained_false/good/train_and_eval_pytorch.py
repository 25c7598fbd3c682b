import torch
from torchvision.models import resnet18

from models import ResNet18


def build(n_channels, n_classes, resize, device):
    model = resnet18(weights=None, num_classes=n_classes) if resize else ResNet18(in_channels=n_channels, num_classes=n_classes)
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    return model, optimizer
