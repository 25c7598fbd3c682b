import torch

from dlinear import DLinear


def main():
    context_length, horizon, n_features = 96, 24, 7
    model = DLinear(context_length, horizon, n_features)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    series = torch.randn(1000, n_features).cumsum(0)
    for step in range(200):
        starts = torch.randint(0, 1000 - context_length - horizon, (32,))
        x = torch.stack([series[s : s + context_length] for s in starts])
        y = torch.stack([series[s + context_length : s + context_length + horizon] for s in starts])
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
