import torch
import torch.nn as nn

from base_model import ResNet34


class SSD300(nn.Module):
    """Single-shot detector for 300x300 inputs on a ResNet-34 backbone (8732 default boxes)."""

    def __init__(self, label_num, backbone="resnet34"):
        super(SSD300, self).__init__()
        self.label_num = label_num
        if backbone != "resnet34":
            raise ValueError("Invalid backbone chosen")
        self.model = ResNet34()
        self.out_chan = [256, 512, 512, 256, 256, 256]
        self._build_additional_features(self.out_chan)

        self.num_defaults = [4, 6, 6, 6, 4, 4]
        self.loc = nn.ModuleList(
            [nn.Conv2d(oc, nd * 4, kernel_size=3, padding=1) for nd, oc in zip(self.num_defaults, self.out_chan)])
        self.conf = nn.ModuleList(
            [nn.Conv2d(oc, nd * label_num, kernel_size=3, padding=1)
             for nd, oc in zip(self.num_defaults, self.out_chan)])
        self._init_weights()

    def _build_additional_features(self, channels):
        middle = [256, 256, 128, 128, 128]
        blocks = []
        for i, (cin, cmid, cout) in enumerate(zip(channels[:-1], middle, channels[1:])):
            last_two = i >= 3
            blocks.append(nn.Sequential(
                nn.Conv2d(cin, cmid, kernel_size=1),
                nn.ReLU(inplace=True),
                nn.Conv2d(cmid, cout, kernel_size=3, padding=0 if last_two else 1, stride=1 if last_two else 2),
                nn.ReLU(inplace=True),
            ))
        self.additional_blocks = nn.ModuleList(blocks)

    def _init_weights(self):
        for layer in [*self.additional_blocks, *self.loc, *self.conf]:
            for param in layer.parameters():
                if param.dim() > 1:
                    nn.init.xavier_uniform_(param)

    def bbox_view(self, src, loc, conf):
        ret = []
        for s, l, c in zip(src, loc, conf):
            ret.append((l(s).view(s.size(0), 4, -1), c(s).view(s.size(0), self.label_num, -1)))
        locs, confs = list(zip(*ret))
        return torch.cat(locs, 2).contiguous(), torch.cat(confs, 2).contiguous()

    def forward(self, data):
        layers = self.model(data)
        src = layers[-1]
        detection_feed = [src]
        for block in self.additional_blocks:
            src = block(src)
            detection_feed.append(src)
        return self.bbox_view(detection_feed, self.loc, self.conf)
