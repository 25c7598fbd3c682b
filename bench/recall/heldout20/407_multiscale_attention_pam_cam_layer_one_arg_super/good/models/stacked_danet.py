import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

from .attention import MultiConv, PAM_CAM_Layer


class DAF_stack(nn.Module):
    """Multi-scale guided self-attention: backbone features refined by stacked dual attention."""

    def __init__(self, n_classes=5):
        super(DAF_stack, self).__init__()
        backbone = torchvision.models.resnet50(weights=None)
        self.layer0 = nn.Sequential(backbone.conv1, backbone.bn1, backbone.relu, backbone.maxpool)
        self.layer1, self.layer2 = backbone.layer1, backbone.layer2
        self.layer3, self.layer4 = backbone.layer3, backbone.layer4
        self.down = nn.ModuleList(
            nn.Sequential(nn.Conv2d(c, 64, kernel_size=1), nn.BatchNorm2d(64), nn.PReLU())
            for c in (256, 512, 1024, 2048)
        )
        self.fuse = MultiConv(256, 64, False)
        self.pam = nn.ModuleList(PAM_CAM_Layer(64, True) for _ in range(4))
        self.cam = nn.ModuleList(PAM_CAM_Layer(64, False) for _ in range(4))
        self.attention = nn.ModuleList(MultiConv(128, 64) for _ in range(4))
        self.refine = nn.ModuleList(MultiConv(128, 64, False) for _ in range(4))
        self.predict = nn.ModuleList(nn.Conv2d(64, n_classes, kernel_size=1) for _ in range(4))

    def forward(self, x):
        l0 = self.layer0(x)
        feats = []
        h = l0
        for layer in (self.layer1, self.layer2, self.layer3, self.layer4):
            h = layer(h)
            feats.append(h)
        size = feats[0].shape[2:]
        downs = [F.interpolate(d(f), size=size, mode="bilinear", align_corners=False) for d, f in zip(self.down, feats)]
        fused = self.fuse(torch.cat(downs, dim=1))
        outputs = []
        for i, d in enumerate(downs):
            guided = torch.cat((d, fused), dim=1)
            attn = self.pam[i](guided) + self.cam[i](guided)
            refined = self.refine[i](torch.cat((d, self.attention[i](guided) * attn), dim=1))
            outputs.append(F.interpolate(self.predict[i](refined), size=x.shape[2:], mode="bilinear",
                                         align_corners=False))
        return outputs
