import torch.nn as nn
import torch.nn.functional as F
from torchvision.models import vgg16


class FCN32s(nn.Module):
    def __init__(self, nclass, aux=False, norm_layer=nn.BatchNorm2d):
        super(FCN32s, self).__init__()
        self.aux = aux
        self.pretrained = vgg16(weights=None).features
        self.head = nn.Sequential(
            nn.Conv2d(512, 512, 3, padding=1, bias=False),
            norm_layer(512),
            nn.ReLU(True),
            nn.Dropout(0.1),
            nn.Conv2d(512, nclass, 1),
        )
        if aux:
            self.auxlayer = nn.Conv2d(512, nclass, 1)

    def forward(self, x):
        size = x.size()[2:]
        feat = self.pretrained(x)
        outputs = [F.interpolate(self.head(feat), size, mode='bilinear', align_corners=True)]
        if self.aux:
            outputs.append(F.interpolate(self.auxlayer(feat), size, mode='bilinear', align_corners=True))
        return tuple(outputs)


class MixSoftmaxCrossEntropyLoss(nn.CrossEntropyLoss):
    def __init__(self, aux=True, aux_weight=0.2, ignore_label=-1):
        super(MixSoftmaxCrossEntropyLoss, self).__init__(ignore_index=ignore_label)
        self.aux = aux
        self.aux_weight = aux_weight

    def forward(self, preds, target):
        loss = super(MixSoftmaxCrossEntropyLoss, self).forward(preds[0], target)
        if self.aux:
            loss = loss + self.aux_weight * super(MixSoftmaxCrossEntropyLoss, self).forward(preds[1], target)
        return loss


def get_segmentation_model(model, nclass, aux=False, norm_layer=nn.BatchNorm2d):
    models = {'fcn32s': FCN32s}
    return models[model](nclass, aux=aux, norm_layer=norm_layer)
