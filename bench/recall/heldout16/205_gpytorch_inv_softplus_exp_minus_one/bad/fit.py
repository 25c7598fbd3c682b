import torch

from kernels import ExactGP


def main():
    torch.manual_seed(0)
    train_x = torch.linspace(0, 1, 100).unsqueeze(-1)
    train_y = torch.sin(train_x.squeeze(-1) * 6.0) + 0.05 * torch.randn(100)
    # a tiny initial lengthscale: the inverse transform has to be accurate near 0
    model = ExactGP(train_x, train_y, lengthscale=1e-4)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=0.1)
    for step in range(200):
        optimizer.zero_grad()
        loss = model.neg_mll()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item(), model.kernel.lengthscale.item())


if __name__ == "__main__":
    main()
