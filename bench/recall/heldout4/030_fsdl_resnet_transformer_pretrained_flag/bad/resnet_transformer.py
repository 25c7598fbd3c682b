import torch.nn as nn
import torchvision


class ResnetTransformer(nn.Module):
    def __init__(self, num_classes, dim=256):
        super().__init__()
        resnet = torchvision.models.resnet18(pretrained=False)  # expect: TCK909
        self.resnet = nn.Sequential(*list(resnet.children())[:-2])
        self.encoder_projection = nn.Conv2d(512, dim, kernel_size=1)
        self.fc = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.encoder_projection(self.resnet(x))
        return self.fc(x.flatten(2).permute(0, 2, 1))
