import torch
import torch.nn as nn
import torchvision

from retinanet import losses


class RetinaHead(nn.Module):
    def __init__(self, in_channels, num_anchors, out_per_anchor):
        super().__init__()
        self.out_per_anchor = out_per_anchor
        self.body = nn.Sequential(
            nn.Conv2d(in_channels, 256, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(256, num_anchors * out_per_anchor, kernel_size=3, padding=1),
        )

    def forward(self, x):
        out = self.body(x).permute(0, 2, 3, 1)
        return out.contiguous().view(x.shape[0], -1, self.out_per_anchor)


class RetinaNet(nn.Module):
    def __init__(self, num_classes, anchors_fn):
        super().__init__()
        backbone = torchvision.models.resnet50()
        self.features = nn.Sequential(*list(backbone.children())[:-2])
        self.regressor = RetinaHead(2048, 9, 4)
        self.classifier = nn.Sequential(RetinaHead(2048, 9, num_classes), nn.Sigmoid())
        self.anchors = anchors_fn
        self.focalLoss = losses.FocalLoss()

    def forward(self, inputs):
        if self.training:
            img_batch, annotations = inputs
        else:
            img_batch = inputs
        features = self.features(img_batch)
        regression = self.regressor(features)
        classification = self.classifier(features)
        anchors = self.anchors(img_batch)
        if self.training:
            return self.focalLoss(classification, regression, anchors, annotations)
        return classification, regression
