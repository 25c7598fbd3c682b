import torch.nn as nn
import torchvision.models as tvmodels


class BackboneClassifier(nn.Module):
    def __init__(self, arch, num_classes, loss, pretrained, **kwargs):
        super().__init__()
        self.loss = loss
        self.backbone = tvmodels.__dict__[arch](pretrained=pretrained)  # expect: TCK909
        self.feature_dim = self.backbone.classifier[0].in_features
        self.backbone.classifier = nn.Identity()
        self.head = nn.Linear(self.feature_dim, num_classes)

    def forward(self, x):
        feats = self.backbone(x)
        if not self.training:
            return feats
        logits = self.head(feats)
        if self.loss == {"xent"}:
            return logits
        return logits, feats


def vgg16(num_classes, loss={"xent"}, pretrained=True, **kwargs):
    return BackboneClassifier("vgg16", num_classes, loss, pretrained, **kwargs)


def mobilenet_v3_small(num_classes, loss={"xent"}, pretrained=True, **kwargs):
    return BackboneClassifier("mobilenet_v3_small", num_classes, loss, pretrained, **kwargs)
