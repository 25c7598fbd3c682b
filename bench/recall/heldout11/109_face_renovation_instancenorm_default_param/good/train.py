import torch
import torch.nn.functional as F

from generator import RenovationGenerator


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    netG = RenovationGenerator().to(device)
    optimizer_G = torch.optim.Adam(netG.parameters(), lr=1e-4, betas=(0.0, 0.9))
    for it in range(200):
        clean = torch.rand(4, 3, 64, 64, device=device) * 2 - 1
        degraded = F.interpolate(F.avg_pool2d(clean, 4), scale_factor=4, mode="bilinear", align_corners=False)
        fake = netG(degraded)
        loss = F.l1_loss(fake, clean)
        optimizer_G.zero_grad()
        loss.backward()
        optimizer_G.step()
        if it % 50 == 0:
            print(it, loss.item())


if __name__ == "__main__":
    main()
