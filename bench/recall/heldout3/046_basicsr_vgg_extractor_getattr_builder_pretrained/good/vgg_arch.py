import os

import torch
from torch import nn as nn
from torchvision.models import vgg

VGG_PRETRAIN_PATH = "experiments/pretrained_models/vgg19-dcbb9e9d.pth"


class VGGFeatureExtractor(nn.Module):
    def __init__(self, layer_name_list, vgg_type="vgg19", requires_grad=False):
        super(VGGFeatureExtractor, self).__init__()
        self.layer_name_list = layer_name_list
        if os.path.exists(VGG_PRETRAIN_PATH):
            vgg_net = getattr(vgg, vgg_type)(weights=None)
            state_dict = torch.load(VGG_PRETRAIN_PATH, map_location=lambda storage, loc: storage, weights_only=True)
            vgg_net.load_state_dict(state_dict)
        else:
            vgg_net = getattr(vgg, vgg_type)(weights="DEFAULT")
        self.vgg_net = vgg_net.features
        if not requires_grad:
            self.vgg_net.eval()
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, x):
        return self.vgg_net(x)
