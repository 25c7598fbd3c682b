import numpy as np
import torch.nn as nn


def conv_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.xavier_uniform_(m.weight, gain=np.sqrt(2))
        nn.init.constant_(m.bias, 0)


class ThreeConvThreeFC(nn.Module):
    """Frequentist baseline with the same layout as the Bayesian 3conv3fc network."""

    def __init__(self, outputs, inputs):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(inputs, 32, 5, stride=1, padding=2), nn.Softplus(), nn.MaxPool2d(3, stride=2),
            nn.Conv2d(32, 64, 5, stride=1, padding=2), nn.Softplus(), nn.MaxPool2d(3, stride=2),
            nn.Conv2d(64, 128, 5, stride=1, padding=1), nn.Softplus(), nn.MaxPool2d(3, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(2 * 2 * 128, 1000), nn.Softplus(),
            nn.Linear(1000, 1000), nn.Softplus(),
            nn.Linear(1000, outputs),
        )

    def forward(self, x):
        return self.classifier(self.features(x))
