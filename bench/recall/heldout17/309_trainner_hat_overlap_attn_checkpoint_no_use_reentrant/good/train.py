import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from hat_arch import HAT


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    lr_imgs = torch.rand(64, 3, 32, 32)
    hr_imgs = torch.rand(64, 3, 128, 128)
    loader = DataLoader(TensorDataset(lr_imgs, hr_imgs), batch_size=8, shuffle=True, num_workers=2)

    net_g = HAT(use_checkpoint=True).to(device)
    optimizer = torch.optim.AdamW(net_g.parameters(), lr=2e-4, betas=(0.9, 0.99))
    criterion = nn.L1Loss()
    for epoch in range(5):
        net_g.train()
        for lq, gt in loader:
            lq, gt = lq.to(device), gt.to(device)
            optimizer.zero_grad()
            loss = criterion(net_g(lq), gt)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: l1 {loss.item():.4f}")


if __name__ == "__main__":
    main()
