import torch
import torch.nn as nn


class KANLayer(nn.Module):
    """One Kolmogorov-Arnold layer: a learnable 1-D function on every edge (RBF basis)."""

    def __init__(self, in_dim, out_dim, num=8, x_range=(-1.0, 1.0)):
        super().__init__()
        self.register_buffer("grid", torch.linspace(x_range[0], x_range[1], num))
        self.coef = nn.Parameter(torch.randn(in_dim, out_dim, num) * 0.1)
        self.scale_base = nn.Parameter(torch.ones(in_dim, out_dim))
        self.width = (x_range[1] - x_range[0]) / (num - 1)

    def forward(self, x):
        basis = torch.exp(-(((x[..., None] - self.grid) / self.width) ** 2))
        spline = torch.einsum("bik,iok->bo", basis, self.coef)
        base = torch.einsum("bi,io->bo", torch.nn.functional.silu(x), self.scale_base)
        return spline + base


class KAN(nn.Module):
    def __init__(self, width, grid=8, seed=0):
        super().__init__()
        torch.manual_seed(seed)
        self.layers = nn.ModuleList(KANLayer(a, b, num=grid) for a, b in zip(width[:-1], width[1:]))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def reg(self):
        return sum(layer.coef.abs().mean() for layer in self.layers)

    def train(self, dataset, opt="LBFGS", steps=100, lamb=0.0, lr=1.0, log=10):  # expect: TCK610
        if opt == "LBFGS":
            optimizer = torch.optim.LBFGS(self.parameters(), lr=lr, history_size=10, line_search_fn="strong_wolfe")
        else:
            optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        x, y = dataset["train_input"], dataset["train_label"]
        results = {"train_loss": [], "test_loss": []}

        def closure():
            optimizer.zero_grad()
            loss = torch.mean((self(x) - y) ** 2) + lamb * self.reg()
            loss.backward()
            return loss

        for step in range(steps):
            optimizer.step(closure)
            with torch.no_grad():
                train_loss = torch.sqrt(torch.mean((self(x) - y) ** 2)).item()
                test_loss = torch.sqrt(
                    torch.mean((self(dataset["test_input"]) - dataset["test_label"]) ** 2)
                ).item()
            results["train_loss"].append(train_loss)
            results["test_loss"].append(test_loss)
            if step % log == 0:
                print(f"step {step}: train {train_loss:.2e} test {test_loss:.2e}")
        return results
