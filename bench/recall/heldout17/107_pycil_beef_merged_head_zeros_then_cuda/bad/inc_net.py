import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class SimpleLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        nn.init.kaiming_uniform_(self.weight, nonlinearity="linear")

    def forward(self, x):
        return {"logits": F.linear(x, self.weight, self.bias)}


class SmallConvNet(nn.Module):
    out_dim = 64

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )

    def forward(self, x):
        return {"features": self.body(x)}


class BEEFNet(nn.Module):
    """One backbone per task; old and new heads are merged in forward."""

    def __init__(self):
        super().__init__()
        self.convnets = nn.ModuleList()
        self.out_dim = None
        self.old_fc = None
        self.new_fc = None
        self.task_sizes = []

    @property
    def feature_dim(self):
        return 0 if self.out_dim is None else self.out_dim * len(self.convnets)

    def forward(self, x):
        features = torch.cat([net(x)["features"] for net in self.convnets], dim=1)
        if self.old_fc is None:
            return self.new_fc(features)

        new_task_size = self.task_sizes[-1]
        old_w = torch.cat([self.old_fc.weight, torch.zeros((new_task_size, self.feature_dim - self.out_dim)).cuda()], dim=0)  # expect: TCK201
        pad_new = torch.zeros(sum(self.task_sizes[:-1]), self.out_dim, device=features.device)
        new_w = torch.cat([pad_new, self.new_fc.weight], dim=0)
        weight = torch.cat([old_w, new_w], dim=1)
        bias = torch.cat([self.old_fc.bias, torch.zeros(new_task_size).cuda()]) + torch.cat([torch.zeros_like(self.old_fc.bias), self.new_fc.bias])  # expect: TCK201
        return {"logits": features @ weight.t() + bias}

    def update_fc(self, nb_classes):
        new_task_size = nb_classes - sum(self.task_sizes)
        self.convnets.append(SmallConvNet())
        if self.out_dim is None:
            self.out_dim = self.convnets[-1].out_dim
        if self.new_fc is not None:
            self.old_fc = self.merged_head()
        self.new_fc = SimpleLinear(self.out_dim, new_task_size)
        self.task_sizes.append(new_task_size)

    def merged_head(self):
        head = SimpleLinear(self.out_dim * len(self.convnets[:-1]), sum(self.task_sizes))
        if self.old_fc is None:
            head.load_state_dict(self.new_fc.state_dict())
        return head

    def copy(self):
        return copy.deepcopy(self)
