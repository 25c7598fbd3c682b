import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from models.hpcm import HPCM


def rate_distortion(out, target, lmbda=0.0130):
    n, _, h, w = target.shape
    bpp = sum(torch.log(l).sum() for l in out["likelihoods"].values()) / (-math.log(2) * n * h * w)
    return lmbda * 255 ** 2 * F.mse_loss(out["x_hat"], target) + bpp, bpp


def main():
    device = "cuda"
    net = HPCM().to(device)
    if torch.cuda.device_count() > 1:
        net = nn.DataParallel(net)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
    for step in range(10000):
        x = torch.rand(8, 3, 256, 256, device=device)
        loss, bpp = rate_distortion(net(x), x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item(), bpp.item())
    model = net.module if isinstance(net, nn.DataParallel) else net
    torch.save(model.state_dict(), "hpcm.pth.tar")


if __name__ == "__main__":
    main()
