import torch.nn as nn
import torchvision


def resnet_encoder(arch="resnet18"):
    backbone = getattr(torchvision.models, arch)(weights=None)
    backbone.fc = nn.Identity()
    return backbone


class SupervisedHead(nn.Module):
    def __init__(self, in_features=512, n_classes=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_features, in_features), nn.BatchNorm1d(in_features),
                                 nn.ReLU(inplace=True), nn.Dropout(0.2), nn.Linear(in_features, n_classes))

    def forward(self, x):
        return self.net(x)
