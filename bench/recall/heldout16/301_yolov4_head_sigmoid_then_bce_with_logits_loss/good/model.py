import torch
import torch.nn as nn


class ConvBlock(nn.Module):
    def __init__(self, c_in, c_out, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn = nn.BatchNorm2d(c_out)
        self.act = nn.Mish()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class YoloHead(nn.Module):
    def __init__(self, c_in, num_classes, num_anchors=3):
        super().__init__()
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.pred = nn.Conv2d(c_in, num_anchors * (5 + num_classes), 1)

    def forward(self, feats):
        bs, _, ny, nx = feats.shape
        p = self.pred(feats)
        p = p.view(bs, self.num_anchors, 5 + self.num_classes, ny, nx).permute(0, 3, 4, 1, 2)
        box = p[..., :4]
        conf_logits = p[..., 4:5]
        cls_logits = p[..., 5:]
        return box, conf_logits, cls_logits

    @torch.no_grad()
    def decode(self, feats):
        box, conf_logits, cls_logits = self.forward(feats)
        return box, torch.sigmoid(conf_logits), torch.sigmoid(cls_logits)


class TinyYolo(nn.Module):
    def __init__(self, num_classes=20):
        super().__init__()
        self.backbone = nn.Sequential(
            ConvBlock(3, 32, 2),
            ConvBlock(32, 64, 2),
            ConvBlock(64, 128, 2),
            ConvBlock(128, 256, 2),
        )
        self.head = YoloHead(256, num_classes)

    def forward(self, images):
        return self.head(self.backbone(images))
