import torch
from torch import nn, sigmoid
from torchvision.models import vgg16


class SalEMA(nn.Module):
    def __init__(self, alpha, ema_loc, use_gpu=True):
        super(SalEMA, self).__init__()
        self.use_gpu = use_gpu
        if alpha is None:
            self.alpha = nn.Parameter(torch.tensor([0.25], device="cuda" if use_gpu else "cpu"))
            print("Initial alpha set to: {}".format(self.alpha))
        else:
            self.alpha = torch.Tensor([alpha])
        self.ema_loc = ema_loc
        encoder = list(vgg16().features)[:30]
        decoder = [nn.Conv2d(512, 512, 3, padding=1), nn.ReLU(), nn.Conv2d(512, 1, 1), nn.Sigmoid()]
        self.salgan = nn.Sequential(*(encoder + decoder))

    def forward(self, input_, prev_state=None):
        x = self.salgan[:self.ema_loc](input_)
        if prev_state is None:
            current_state = self.salgan[self.ema_loc](x)
        else:
            current_state = sigmoid(self.alpha) * self.salgan[self.ema_loc](x) + (1 - sigmoid(self.alpha)) * prev_state
        x = self.salgan[self.ema_loc + 1:](current_state)
        return current_state, x
