import torch

from normflows.model import RealNVP


def main():
    torch.manual_seed(0)
    model = RealNVP(dim=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = torch.randn(1024, 4) * torch.tensor([1.0, 0.5, 2.0, 0.1])
    for step in range(300):
        optimizer.zero_grad()
        loss = -model.log_prob(data).mean()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item())
    print(model.sample(3))


if __name__ == "__main__":
    main()
