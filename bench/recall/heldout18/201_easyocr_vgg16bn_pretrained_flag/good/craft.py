import torch
import torch.nn as nn
import torch.nn.functional as F

from modules import VGG16BNFeatures, init_weights


class DoubleConv(nn.Module):
    def __init__(self, in_ch, mid_ch, out_ch):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(in_ch + mid_ch, mid_ch, kernel_size=1),
            nn.BatchNorm2d(mid_ch),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, out_ch, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_ch),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.conv(x)


class CRAFT(nn.Module):
    def __init__(self, pretrained=True, freeze=False):
        super().__init__()
        self.basenet = VGG16BNFeatures(pretrained, freeze)
        self.upconv1 = DoubleConv(1024, 512, 256)
        self.upconv2 = DoubleConv(512, 256, 128)
        self.upconv3 = DoubleConv(256, 128, 64)
        self.upconv4 = DoubleConv(128, 64, 32)
        self.conv_cls = nn.Sequential(
            nn.Conv2d(32, 32, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(32, 16, kernel_size=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 2, kernel_size=1),
        )
        init_weights(self.upconv1.modules())
        init_weights(self.conv_cls.modules())

    def forward(self, x):
        sources = self.basenet(x)
        y = torch.cat([sources[0], sources[1]], dim=1)
        y = self.upconv1(y)
        y = F.interpolate(y, size=sources[2].size()[2:], mode="bilinear", align_corners=False)
        y = self.upconv2(torch.cat([y, sources[2]], dim=1))
        y = F.interpolate(y, size=sources[3].size()[2:], mode="bilinear", align_corners=False)
        y = self.upconv3(torch.cat([y, sources[3]], dim=1))
        y = F.interpolate(y, size=sources[4].size()[2:], mode="bilinear", align_corners=False)
        feature = self.upconv4(torch.cat([y, sources[4]], dim=1))
        y = self.conv_cls(feature)
        return y.permute(0, 2, 3, 1), feature


def train(loader, epochs=10, device="cuda"):
    model = CRAFT(pretrained=True).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    criterion = nn.MSELoss()
    model.train()
    for epoch in range(epochs):
        for images, region_gt, affinity_gt in loader:
            images = images.to(device)
            region_gt, affinity_gt = region_gt.to(device), affinity_gt.to(device)
            out, _ = model(images)
            loss = criterion(out[..., 0], region_gt) + criterion(out[..., 1], affinity_gt)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save(model.state_dict(), f"craft_epoch{epoch}.pth")
