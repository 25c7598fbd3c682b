import argparse

import torch
import torch.nn.functional as F

from loss.vgg import VGG
from model.edsr import EDSR

parser = argparse.ArgumentParser()
parser.add_argument("--n_feats", type=int, default=64)
parser.add_argument("--n_resblocks", type=int, default=16)
parser.add_argument("--res_scale", type=float, default=1.0)
parser.add_argument("--scale", type=int, default=2)
parser.add_argument("--n_colors", type=int, default=3)
parser.add_argument("--rgb_range", type=int, default=255)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--vgg_weight", type=float, default=0.1)


def main():
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = EDSR(args).to(device)
    perceptual = VGG("54", rgb_range=args.rgb_range).to(device)
    optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=args.lr)
    for step in range(1000):
        lr_img = torch.rand(8, 3, 48, 48, device=device) * args.rgb_range
        hr_img = F.interpolate(lr_img, scale_factor=args.scale, mode="bicubic")
        sr_img = model(lr_img)
        loss = F.l1_loss(sr_img, hr_img) + args.vgg_weight * perceptual(sr_img, hr_img)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item())
    torch.save(model.state_dict(), "edsr.pt")


if __name__ == "__main__":
    main()
