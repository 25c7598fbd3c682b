import torch

from esn import ESN


def mackey_glass(n, tau=17, delta_t=1.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    history = 1.2 + 0.1 * torch.rand(tau, generator=g)
    xs = list(history.tolist())
    for _ in range(n):
        x_tau = xs[-tau]
        x = xs[-1]
        xs.append(x + delta_t * (0.2 * x_tau / (1 + x_tau ** 10) - 0.1 * x))
    return torch.tensor(xs[tau:])


def main():
    series = mackey_glass(3000)
    inputs = series[:-1].view(1, -1, 1)
    targets = series[1:].view(1, -1, 1)
    train_x, test_x = inputs[:, :2000], inputs[:, 2000:]
    train_y, test_y = targets[:, :2000], targets[:, 2000:]

    model = ESN(1, 200, 1, readout_training="cholesky")
    with torch.no_grad():
        model(train_x, washout=100, target=train_y)
        model.fit()
        pred = model(test_x)
    print("test MSE", torch.mean((pred - test_y) ** 2).item())


if __name__ == "__main__":
    main()
