import torch.nn as nn
import torch.nn.functional as F
import torchvision


class VGGLoss(nn.Module):
    """MSE between VGG19 feature maps (before the fifth max-pooling) of the two images."""

    def __init__(self):
        super(VGGLoss, self).__init__()
        vgg = torchvision.models.vgg19(pretrained=True)
        self.features = nn.Sequential(*list(vgg.features.children())[:36]).eval()
        for param in self.features.parameters():
            param.requires_grad = False

    def forward(self, sr, hr):
        return F.mse_loss(self.features(sr), self.features(hr))
