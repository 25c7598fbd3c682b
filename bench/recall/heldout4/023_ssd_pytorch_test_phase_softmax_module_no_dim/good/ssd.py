import torch
import torch.nn as nn


class SSD(nn.Module):
    def __init__(self, phase, base, extras, head, num_classes):
        super().__init__()
        self.phase = phase
        self.num_classes = num_classes
        self.vgg = nn.ModuleList(base)
        self.extras = nn.ModuleList(extras)
        self.loc = nn.ModuleList(head[0])
        self.conf = nn.ModuleList(head[1])
        if phase == "test":
            self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        sources, loc, conf = [], [], []
        for layer in self.vgg:
            x = layer(x)
        sources.append(x)
        for layer in self.extras:
            x = layer(x)
            sources.append(x)
        for (s, l, c) in zip(sources, self.loc, self.conf):
            loc.append(l(s).permute(0, 2, 3, 1).contiguous())
            conf.append(c(s).permute(0, 2, 3, 1).contiguous())
        loc = torch.cat([o.view(o.size(0), -1) for o in loc], 1)
        conf = torch.cat([o.view(o.size(0), -1) for o in conf], 1)
        if self.phase == "test":
            return loc.view(loc.size(0), -1, 4), self.softmax(conf.view(-1, self.num_classes))
        return loc.view(loc.size(0), -1, 4), conf.view(conf.size(0), -1, self.num_classes)
