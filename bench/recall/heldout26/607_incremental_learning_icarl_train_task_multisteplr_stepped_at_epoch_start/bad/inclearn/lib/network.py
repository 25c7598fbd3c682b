import copy

import torch
from torch import nn
from torchvision.models import resnet18


class CosineOrLinearClassifier(nn.Module):
    def __init__(self, features_dim, use_bias=True):
        super().__init__()
        self.features_dim = features_dim
        self.use_bias = use_bias
        self.fc = None

    def add_classes(self, n_classes, device):
        new_fc = nn.Linear(self.features_dim, (self.fc.out_features if self.fc else 0) + n_classes,
                           bias=self.use_bias).to(device)
        if self.fc is not None:
            with torch.no_grad():
                new_fc.weight[:self.fc.out_features] = self.fc.weight
                if self.use_bias:
                    new_fc.bias[:self.fc.out_features] = self.fc.bias
        self.fc = new_fc

    def forward(self, features):
        return self.fc(features)


class BasicNet(nn.Module):
    """Feature extractor plus a classifier head that grows with every task."""

    def __init__(self, convnet_type, convnet_kwargs={}, device=None, use_bias=True,
                 extract_no_act=False, classifier_no_act=False):
        super(BasicNet, self).__init__()
        if convnet_type != "resnet18":
            raise NotImplementedError("Unknown convnet type {}".format(convnet_type))
        backbone = resnet18(**convnet_kwargs)
        self.out_dim = backbone.fc.in_features
        backbone.fc = nn.Identity()
        self.convnet = backbone
        self.classifier = CosineOrLinearClassifier(self.out_dim, use_bias=use_bias)
        self.extract_no_act = extract_no_act
        self.classifier_no_act = classifier_no_act
        self.device = device
        self.to(self.device)

    def forward(self, x):
        return self.classifier(self.convnet(x))

    def extract(self, x):
        return self.convnet(x)

    def add_classes(self, n_classes):
        self.classifier.add_classes(n_classes, self.device)

    def freeze(self):
        for param in self.parameters():
            param.requires_grad = False
        self.eval()
        return self

    def copy(self):
        return copy.deepcopy(self)

    def on_task_end(self):
        pass
