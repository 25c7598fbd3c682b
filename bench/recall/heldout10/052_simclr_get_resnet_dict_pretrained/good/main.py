import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

from resnet import get_resnet


class SimCLR(nn.Module):
    def __init__(self, encoder, projection_dim, n_features):
        super().__init__()
        self.encoder = encoder
        self.encoder.fc = nn.Identity()
        self.projector = nn.Sequential(
            nn.Linear(n_features, n_features, bias=False),
            nn.ReLU(),
            nn.Linear(n_features, projection_dim, bias=False),
        )

    def forward(self, x_i, x_j):
        h_i, h_j = self.encoder(x_i), self.encoder(x_j)
        return self.projector(h_i), self.projector(h_j)


def nt_xent(z_i, z_j, temperature=0.5):
    z = F.normalize(torch.cat([z_i, z_j]), dim=1)
    sim = z @ z.t() / temperature
    n = z_i.size(0)
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(sim, targets)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resnet", default="resnet18")
    parser.add_argument("--pretrain", action="store_true")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    encoder = get_resnet(args.resnet, pretrained=args.pretrain)
    n_features = encoder.fc.in_features
    model = SimCLR(encoder, 64, n_features).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    for step in range(5):
        x_i = torch.randn(8, 3, 64, 64, device=device)
        x_j = x_i + 0.1 * torch.randn_like(x_i)
        optimizer.zero_grad()
        z_i, z_j = model(x_i, x_j)
        loss = nt_xent(z_i, z_j)
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
