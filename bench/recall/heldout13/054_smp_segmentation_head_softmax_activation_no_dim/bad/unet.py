import torch
from torch import nn

from base import SegmentationHead


class TinyUnet(nn.Module):
    def __init__(self, classes=4, activation=None):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(inplace=True),
        )
        self.decoder = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(64, 32, 3, padding=1), nn.ReLU(inplace=True))
        self.segmentation_head = SegmentationHead(32, classes, activation=activation)

    def forward(self, x):
        return self.segmentation_head(self.decoder(self.encoder(x)))

    @torch.no_grad()
    def predict(self, x):
        if self.training:
            self.eval()
        return self(x)


if __name__ == "__main__":
    model = TinyUnet(classes=4, activation="softmax")
    masks = model.predict(torch.randn(2, 3, 64, 64))
    print(masks.shape, masks.sum(dim=1).mean().item())
