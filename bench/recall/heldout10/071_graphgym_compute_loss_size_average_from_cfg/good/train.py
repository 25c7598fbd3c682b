import torch
import torch.nn as nn

from config import cfg
from loss import compute_loss


class GNNLayer(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.lin = nn.Linear(dim_in, dim_out)

    def forward(self, x, adj):
        deg = adj.sum(dim=1, keepdim=True).clamp_min(1)
        return torch.relu(self.lin(adj @ x / deg))


class GNN(nn.Module):
    def __init__(self, dim_in, dim_hidden, dim_out):
        super().__init__()
        self.layers = nn.ModuleList([GNNLayer(dim_in, dim_hidden), GNNLayer(dim_hidden, dim_hidden)])
        self.head = nn.Linear(dim_hidden, dim_out)

    def forward(self, x, adj):
        for layer in self.layers:
            x = layer(x, adj)
        return self.head(x)


def main():
    n, d = 100, 16
    x = torch.randn(n, d)
    adj = (torch.rand(n, n) < 0.05).float()
    adj = ((adj + adj.t()) > 0).float()
    y = (x[:, 0] > 0).long()
    model = GNN(d, 32, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.optim.base_lr)
    for epoch in range(cfg.optim.max_epoch):
        optimizer.zero_grad()
        loss, score = compute_loss(model(x, adj), y)
        loss.backward()
        optimizer.step()
        acc = ((score > 0.5).long() == y).float().mean()
        print(epoch, loss.item(), acc.item())


if __name__ == "__main__":
    main()
