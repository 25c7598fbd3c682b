import torch
import torch.nn.functional as F
from torch import nn


class SegmentationModule(nn.Module):
    def __init__(self, net_enc, net_dec, crit):
        super().__init__()
        self.encoder = net_enc
        self.decoder = net_dec
        self.crit = crit

    def forward(self, feed_dict, segSize=None):
        if segSize is None:
            pred = self.decoder(self.encoder(feed_dict["img_data"]))
            return self.crit(pred, feed_dict["seg_label"])
        return self.decoder(self.encoder(feed_dict["img_data"]), segSize=segSize)


class ModelBuilder:
    @staticmethod
    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.kaiming_normal(m.weight.data)  # expect: TCK917
        elif classname.find("BatchNorm") != -1:
            m.weight.data.fill_(1.0)
            m.bias.data.fill_(1e-4)

    def build_encoder(self, fc_dim=512):
        enc = nn.Sequential(
            nn.Conv2d(3, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.Conv2d(64, fc_dim, 3, 2, 1), nn.BatchNorm2d(fc_dim), nn.ReLU(inplace=True),
        )
        enc.apply(self.weights_init)
        return enc

    def build_decoder(self, fc_dim=512, num_class=150, use_softmax=False):
        dec = C1Decoder(fc_dim, num_class, use_softmax)
        dec.apply(self.weights_init)
        return dec


class C1Decoder(nn.Module):
    def __init__(self, fc_dim, num_class, use_softmax):
        super().__init__()
        self.use_softmax = use_softmax
        self.conv = nn.Conv2d(fc_dim, fc_dim // 4, 3, 1, 1)
        self.last = nn.Conv2d(fc_dim // 4, num_class, 1)

    def forward(self, x, segSize=None):
        x = self.last(F.relu(self.conv(x)))
        if self.use_softmax:
            x = F.interpolate(x, size=segSize, mode="bilinear", align_corners=False)
            return F.softmax(x, dim=1)
        return F.log_softmax(x, dim=1)
