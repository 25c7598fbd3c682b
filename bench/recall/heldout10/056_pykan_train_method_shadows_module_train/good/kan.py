import torch
import torch.nn as nn


class KANLayer(nn.Module):
    def __init__(self, in_dim, out_dim, num=5, k=3):
        super().__init__()
        self.in_dim, self.out_dim = in_dim, out_dim
        self.grid = nn.Parameter(torch.linspace(-1, 1, num + 1).repeat(in_dim * out_dim, 1), requires_grad=False)
        self.coef = nn.Parameter(0.1 * torch.randn(in_dim * out_dim, num + 1))
        self.scale_base = nn.Parameter(torch.ones(in_dim * out_dim))
        self.base_fun = nn.SiLU()

    def forward(self, x):
        batch = x.shape[0]
        x_rep = x.unsqueeze(1).expand(batch, self.out_dim, self.in_dim).reshape(batch, -1)
        basis = torch.exp(-((x_rep.unsqueeze(-1) - self.grid) ** 2) * 10.0)
        spline = (basis * self.coef).sum(-1)
        y = self.scale_base * self.base_fun(x_rep) + spline
        return y.reshape(batch, self.out_dim, self.in_dim).sum(-1)


class KAN(nn.Module):
    def __init__(self, width, grid=5, k=3):
        super().__init__()
        self.width = width
        self.act_fun = nn.ModuleList(
            [KANLayer(width[l], width[l + 1], num=grid, k=k) for l in range(len(width) - 1)]
        )

    def forward(self, x):
        for layer in self.act_fun:
            x = layer(x)
        return x

    def fit(self, dataset, opt="Adam", steps=100, lamb=0.0, lr=1e-2, batch=-1, device="cpu"):
        loss_fn = nn.MSELoss()
        optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        n = dataset["train_input"].shape[0]
        batch_size = n if batch == -1 else batch
        results = {"train_loss": [], "test_loss": []}
        for _ in range(steps):
            idx = torch.randperm(n, device=device)[:batch_size]
            pred = self.forward(dataset["train_input"][idx].to(device))
            loss = loss_fn(pred, dataset["train_label"][idx].to(device))
            reg = sum(layer.coef.abs().mean() for layer in self.act_fun)
            optimizer.zero_grad()
            (loss + lamb * reg).backward()
            optimizer.step()
            with torch.no_grad():
                test_loss = loss_fn(self.forward(dataset["test_input"].to(device)), dataset["test_label"].to(device))
            results["train_loss"].append(loss.item())
            results["test_loss"].append(test_loss.item())
        return results
