import torch.nn as nn
import torchvision.models as models


class ResNetSimCLR(nn.Module):
    def __init__(self, base_model="resnet18", out_dim=64):
        super().__init__()
        backbones = {"resnet18": models.resnet18, "resnet50": models.resnet50}
        resnet = backbones[base_model](weights=None)
        num_ftrs = resnet.fc.in_features
        self.features = nn.Sequential(*list(resnet.children())[:-1])
        self.l1 = nn.Linear(num_ftrs, num_ftrs)
        self.l2 = nn.Linear(num_ftrs, out_dim)
        self.relu = nn.ReLU()

    def forward(self, x):
        h = self.features(x).flatten(1)
        z = self.l2(self.relu(self.l1(h)))
        return h, z
