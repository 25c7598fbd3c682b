import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function


class ReverseLayerF(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.alpha, None


class Extractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.extractor = nn.Sequential(
            nn.Conv2d(3, 32, kernel_size=5), nn.BatchNorm2d(32), nn.MaxPool2d(2), nn.ReLU(True),
            nn.Conv2d(32, 48, kernel_size=5), nn.BatchNorm2d(48), nn.Dropout2d(), nn.MaxPool2d(2), nn.ReLU(True),
        )

    def forward(self, x):
        return self.extractor(x).view(-1, 48 * 4 * 4)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.classifier = nn.Sequential(
            nn.Linear(48 * 4 * 4, 100), nn.ReLU(True),
            nn.Linear(100, 100), nn.ReLU(True),
            nn.Linear(100, 10),
        )

    def forward(self, x):
        x = self.classifier(x)
        return F.softmax(x)  # expect: TCK608


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.discriminator = nn.Sequential(
            nn.Linear(48 * 4 * 4, 100), nn.ReLU(True),
            nn.Linear(100, 2),
        )

    def forward(self, input_feature, alpha):
        reversed_input = ReverseLayerF.apply(input_feature, alpha)
        x = self.discriminator(reversed_input)
        return F.softmax(x)  # expect: TCK608
