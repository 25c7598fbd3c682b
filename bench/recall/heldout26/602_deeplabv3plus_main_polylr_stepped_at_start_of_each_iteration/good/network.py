"""Model builders: DeepLabV3 / DeepLabV3+ heads on torchvision backbones."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision.models import mobilenet_v2, resnet50, resnet101
from torchvision.models._utils import IntermediateLayerGetter
from torchvision.models.segmentation.deeplabv3 import ASPP


class DeepLabV3Plus(nn.Module):
    def __init__(self, backbone, low_channels, high_channels, num_classes, rates):
        super().__init__()
        self.backbone = backbone
        self.project = nn.Sequential(nn.Conv2d(low_channels, 48, 1, bias=False), nn.BatchNorm2d(48), nn.ReLU(inplace=True))
        self.aspp = ASPP(high_channels, rates)
        self.classifier = nn.Sequential(
            nn.Conv2d(304, 256, 3, padding=1, bias=False), nn.BatchNorm2d(256), nn.ReLU(inplace=True),
            nn.Conv2d(256, num_classes, 1))

    def forward(self, x):
        size = x.shape[-2:]
        feats = self.backbone(x)
        low = self.project(feats["low_level"])
        high = F.interpolate(self.aspp(feats["out"]), size=low.shape[-2:], mode="bilinear", align_corners=False)
        logits = self.classifier(torch.cat([low, high], dim=1))
        return F.interpolate(logits, size=size, mode="bilinear", align_corners=False)


def _resnet(arch, num_classes, output_stride):
    if output_stride == 8:
        dilation, rates = [False, True, True], [12, 24, 36]
    else:
        dilation, rates = [False, False, True], [6, 12, 18]
    net = arch(pretrained=True, replace_stride_with_dilation=dilation)
    backbone = IntermediateLayerGetter(net, return_layers={"layer4": "out", "layer1": "low_level"})
    return DeepLabV3Plus(backbone, 256, 2048, num_classes, rates)


def deeplabv3plus_resnet50(num_classes=21, output_stride=16):
    return _resnet(resnet50, num_classes, output_stride)


def deeplabv3plus_resnet101(num_classes=21, output_stride=16):
    return _resnet(resnet101, num_classes, output_stride)


def deeplabv3plus_mobilenet(num_classes=21, output_stride=16):
    features = mobilenet_v2(pretrained=True).features
    backbone = IntermediateLayerGetter(features, return_layers={"17": "out", "3": "low_level"})
    return DeepLabV3Plus(backbone, 24, 320, num_classes, [6, 12, 18])
