import torch
from torchvision.models import resnet18, resnet50

from .simsiam import SimSiam


def get_backbone(backbone, castrate=True):
    backbone = {'resnet18': resnet18, 'resnet50': resnet50}[backbone]()
    if castrate:
        backbone.output_dim = backbone.fc.in_features
        backbone.fc = torch.nn.Identity()
    return backbone


def get_model(name, backbone):
    if name == 'simsiam':
        return SimSiam(get_backbone(backbone))
    raise NotImplementedError(name)
