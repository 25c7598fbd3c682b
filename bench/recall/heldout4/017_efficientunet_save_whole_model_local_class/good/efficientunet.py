import torch.nn as nn


class EfficientNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, stride=2, padding=1)

    def forward(self, x):
        return self.stem(x)

    @property
    def encoder(self):
        class Encoder(nn.Module):
            def __init__(self, stem):
                super().__init__()
                self.stem = stem

            def forward(self, x):
                return self.stem(x)

        return Encoder(self.stem)


class EfficientUnet(nn.Module):
    def __init__(self, encoder, out_channels=2):
        super().__init__()
        self.encoder = encoder
        self.final_conv = nn.Conv2d(32, out_channels, kernel_size=1)

    def forward(self, x):
        return self.final_conv(self.encoder(x))


def get_efficientunet_b0(out_channels=2):
    return EfficientUnet(EfficientNet().encoder, out_channels=out_channels)
