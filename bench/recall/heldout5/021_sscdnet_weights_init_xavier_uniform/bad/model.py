import torch.nn as nn


def weights_init(m):
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.xavier_uniform(m.weight)  # expect: TCK917
        if m.bias is not None:
            nn.init.zeros_(m.bias)


class CSCDNet(nn.Module):
    def __init__(self, in_ch=6, n_classes=2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(in_ch, 64, 3, padding=1), nn.ReLU(inplace=True),
                                     nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.ReLU(inplace=True))
        self.decoder = nn.Sequential(nn.ConvTranspose2d(128, 64, 2, stride=2), nn.ReLU(inplace=True),
                                     nn.Conv2d(64, n_classes, 1))
        self.apply(weights_init)

    def forward(self, x):
        return self.decoder(self.encoder(x))
