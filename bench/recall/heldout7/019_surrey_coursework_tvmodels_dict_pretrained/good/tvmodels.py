import torch.nn as nn
import torchvision.models as tvmodels


class BackboneClassifier(nn.Module):
    def __init__(self, arch, num_classes, loss, weights, **kwargs):
        super().__init__()
        self.loss = loss
        self.backbone = tvmodels.__dict__[arch](weights=weights)
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


def vgg16(num_classes, loss={"xent"}, weights="DEFAULT", **kwargs):
    return BackboneClassifier("vgg16", num_classes, loss, weights, **kwargs)


def mobilenet_v3_small(num_classes, loss={"xent"}, weights="DEFAULT", **kwargs):
    return BackboneClassifier("mobilenet_v3_small", num_classes, loss, weights, **kwargs)
