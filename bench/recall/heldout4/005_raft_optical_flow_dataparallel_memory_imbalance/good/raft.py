import torch.nn as nn


class RAFT(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.fnet = nn.Conv2d(3, 128, 7, stride=8, padding=3)
        self.update = nn.Conv2d(256, 2, 3, padding=1)

    def forward(self, image1, image2, iters=12):
        f1, f2 = self.fnet(image1), self.fnet(image2)
        flow = self.update(__import__("torch").cat([f1, f2], dim=1))
        return [flow for _ in range(iters)]
