import torch
import torch.nn as nn
from torchvision import models


class AttClsModel(nn.Module):
    def __init__(self, model_type="resnet18", num_attrs=40):
        super(AttClsModel, self).__init__()
        if model_type == "resnet50":
            self.backbone = models.resnet50(weights=None)
            hidden_size = 2048
        else:
            self.backbone = models.resnet18(weights=None)
            hidden_size = 512
        self.register_buffer("lambdas", torch.ones(num_attrs))
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(hidden_size, num_attrs)

    def backbone_forward(self, x):
        b = self.backbone
        x = b.maxpool(b.relu(b.bn1(b.conv1(x))))
        x = b.layer4(b.layer3(b.layer2(b.layer1(x))))
        return b.avgpool(x)

    def forward(self, input, labels=None):
        x = self.backbone_forward(input)
        x = torch.flatten(x, 1)
        x = self.dropout(x)
        x = self.fc(x)
        if labels is None:
            return x
        cls_loss = nn.BCEWithLogitsLoss(reduction="none")(input=x, target=labels)
        cls_loss = torch.sum(cls_loss * self.lambdas.unsqueeze(0), dim=1)
        return torch.mean(cls_loss)
