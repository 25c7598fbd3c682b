import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        layers = [nn.Conv2d(3, 64, 3, 1, 1), nn.LeakyReLU(0.2, True)]
        channels = [(64, 64, 2), (64, 128, 1), (128, 128, 2), (128, 256, 1), (256, 256, 2), (256, 512, 1),
                    (512, 512, 2)]
        for cin, cout, stride in channels:
            layers += [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.LeakyReLU(0.2, True)]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(
            nn.AdaptiveAvgPool2d(6), nn.Flatten(), nn.Linear(512 * 6 * 6, 1024), nn.LeakyReLU(0.2, True),
            nn.Linear(1024, 1), nn.Sigmoid())

    def forward(self, x):
        return self.classifier(self.features(x))


def discriminator():
    return Discriminator()
