import torch
import torch.nn as nn
import torch.nn.functional as F

from detection import Detect


def prior_boxes(feature_sizes, image_size=300):
    boxes = []
    for size in feature_sizes:
        step = 1.0 / size
        for i in range(size):
            for j in range(size):
                cx, cy = (j + 0.5) * step, (i + 0.5) * step
                boxes.append([cx, cy, step * 2, step * 2])
                boxes.append([cx, cy, step * 2.8, step * 1.4])
    return torch.tensor(boxes).clamp_(max=1.0)


def vgg_base(cfg, in_channels=3):
    layers = []
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2, ceil_mode=True)]
        else:
            layers += [nn.Conv2d(in_channels, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
            in_channels = v
    return layers


def multibox(source_channels, boxes_per_location, num_classes):
    loc_layers, conf_layers = [], []
    for channels, n in zip(source_channels, boxes_per_location):
        loc_layers += [nn.Conv2d(channels, n * 4, kernel_size=3, padding=1)]
        conf_layers += [nn.Conv2d(channels, n * num_classes, kernel_size=3, padding=1)]
    return loc_layers, conf_layers


class SSD(nn.Module):
    """Single Shot MultiBox detector. `phase` is "train" (raw scores for the loss) or "test" (detections)."""

    def __init__(self, phase, base, extras, head, num_classes):
        super(SSD, self).__init__()
        self.phase = phase
        self.num_classes = num_classes
        self.register_buffer("priors", prior_boxes([38, 19]))

        self.vgg = nn.ModuleList(base)
        self.extras = nn.ModuleList(extras)
        self.loc = nn.ModuleList(head[0])
        self.conf = nn.ModuleList(head[1])

        if phase == "test":
            self.softmax = nn.Softmax(dim=-1)
            self.detect = Detect(num_classes, top_k=200, conf_thresh=0.01)

    def forward(self, x):
        sources, loc, conf = [], [], []
        for layer in self.vgg:
            x = layer(x)
        sources.append(x)
        for k, layer in enumerate(self.extras):
            x = F.relu(layer(x), inplace=True)
            if k % 2 == 1:
                sources.append(x)

        for feat, l, c in zip(sources, self.loc, self.conf):
            loc.append(l(feat).permute(0, 2, 3, 1).contiguous())
            conf.append(c(feat).permute(0, 2, 3, 1).contiguous())
        loc = torch.cat([o.view(o.size(0), -1) for o in loc], 1)
        conf = torch.cat([o.view(o.size(0), -1) for o in conf], 1)

        if self.phase == "test":
            return self.detect(
                loc.view(loc.size(0), -1, 4),
                self.softmax(conf.view(conf.size(0), -1, self.num_classes)),
                self.priors,
            )
        return (
            loc.view(loc.size(0), -1, 4),
            conf.view(conf.size(0), -1, self.num_classes),
            self.priors,
        )


def build_ssd(phase, num_classes=21):
    if phase not in ("train", "test"):
        raise ValueError("phase must be 'train' or 'test'")
    base = vgg_base([64, "M", 128, "M", 256, "M"])
    extras = [nn.Conv2d(256, 128, kernel_size=1), nn.Conv2d(128, 256, kernel_size=3, stride=2, padding=1)]
    head = multibox([256, 256], [2, 2], num_classes)
    return SSD(phase, base, extras, head, num_classes)
