import torch.nn as nn
import torchvision


class Model(nn.Module):
    """Segment-based action classifier over compressed-video representations."""

    def __init__(self, num_class, num_segments, representation, base_model="resnet18"):
        super().__init__()
        self.num_segments = num_segments
        self.representation = representation
        self.base_model = getattr(torchvision.models, base_model)(weights=None)
        in_channels = {"mv": 2, "residual": 3, "iframe": 3}[representation]
        if in_channels != 3:
            self.base_model.conv1 = nn.Conv2d(in_channels, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.base_model.fc = nn.Linear(self.base_model.fc.in_features, num_class)

    def forward(self, x):
        x = x.view((-1,) + x.size()[-3:])
        return self.base_model(x)
