import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

from unet_trainer import UNetTrainer


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, n_classes=21, width=32):
        super().__init__()
        self.enc1, self.enc2, self.enc3 = conv_block(3, width), conv_block(width, 2 * width), conv_block(2 * width, 4 * width)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(4 * width, 2 * width, 2, stride=2)
        self.dec2 = conv_block(4 * width, 2 * width)
        self.up1 = nn.ConvTranspose2d(2 * width, width, 2, stride=2)
        self.dec1 = conv_block(2 * width, width)
        self.head = nn.Conv2d(width, n_classes, 1)
        self.aux_head = nn.Conv2d(4 * width, n_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        d2 = self.dec2(torch.cat((self.up2(e3), e2), 1))
        d1 = self.dec1(torch.cat((self.up1(d2), e1), 1))
        aux = nn.functional.interpolate(self.aux_head(e3), size=x.shape[-2:], mode="bilinear", align_corners=False)
        return {"logits": self.head(d1), "aux_logits": aux}


class LibreUNet:
    """User-facing wrapper: holds the network in ``.model`` and builds the family trainer."""

    def __init__(self, n_classes=21):
        self.model = UNet(n_classes)

    def train(self, dataset, **kwargs):
        trainer = UNetTrainer(self.model, wrapper_model=self, dataset=dataset, **kwargs)
        trainer.train()


if __name__ == "__main__":
    data = TensorDataset(torch.randn(256, 3, 128, 128), torch.randint(0, 21, (256, 128, 128)))
    LibreUNet().train(data, epochs=2)
