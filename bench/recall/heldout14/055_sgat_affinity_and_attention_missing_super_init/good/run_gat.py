import torch

from sgat.attention import GraphAttentionLayer


def main(n_nodes=50, in_dim=16, out_dim=8, steps=100):
    x = torch.randn(n_nodes, in_dim)
    adjacency = (torch.rand(n_nodes, n_nodes) < 0.1).float() + torch.eye(n_nodes)
    target = torch.randn(n_nodes, out_dim)
    layer = GraphAttentionLayer(in_dim, out_dim)
    optimizer = torch.optim.Adam(layer.parameters(), lr=1e-2)
    for _ in range(steps):
        loss = torch.nn.functional.mse_loss(layer(x, adjacency), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(loss.item())


if __name__ == "__main__":
    main()
