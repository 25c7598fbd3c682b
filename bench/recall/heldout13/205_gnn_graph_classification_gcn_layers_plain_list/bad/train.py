import argparse

import torch
import torch.nn.functional as F

from gcn import GCN


def random_graphs(n_graphs, n_nodes, n_feat, n_class):
    x = torch.randn(n_graphs, n_nodes, n_feat)
    adj = (torch.rand(n_graphs, n_nodes, n_nodes) < 0.1).float()
    adj = ((adj + adj.transpose(1, 2)) > 0).float() + torch.eye(n_nodes)
    adj = adj / adj.sum(dim=-1, keepdim=True)
    y = torch.randint(0, n_class, (n_graphs,))
    return x, adj, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_agg_layer", type=int, default=2)
    parser.add_argument("--agg_hidden", type=int, default=32)
    parser.add_argument("--fc_hidden", type=int, default=128)
    parser.add_argument("--readout", default="avg")
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x, adj, y = random_graphs(512, 40, 3, 2)
    model = GCN(3, 2, args.n_agg_layer, args.agg_hidden, args.fc_hidden, 0.1, args.readout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=5e-4)
    print("trainable parameters:", sum(p.numel() for p in model.parameters()))

    for epoch in range(args.epochs):
        model.train()
        for i in range(0, len(y), 32):
            xb, ab, yb = x[i:i + 32].to(device), adj[i:i + 32].to(device), y[i:i + 32].to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb, ab), yb)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
