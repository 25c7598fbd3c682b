import torch.nn as nn
import torchvision


class GlobalAvgPool2d(nn.Module):
    def forward(self, x):
        return x.mean(dim=(2, 3), keepdim=True)


class ResnetEncoder(nn.Module):
    def __init__(self, arch="resnet34", pretrained=True, frozen=True, pooling=True, cut_layers=2):
        super().__init__()
        weights = "DEFAULT" if pretrained else None
        resnet = torchvision.models.__dict__[arch](weights=weights)
        modules = list(resnet.children())[:-cut_layers]  # drop avgpool and fc

        if frozen:
            for module in modules:
                for param in module.parameters():
                    param.requires_grad = False

        if pooling:
            modules += [GlobalAvgPool2d()]
        modules += [nn.Flatten()]
        self.out_features = resnet.fc.in_features
        self.feature_net = nn.Sequential(*modules)

    def forward(self, image):
        return self.feature_net(image)
