import torch
import torch.nn.functional as F

from astgcn import ASTGCN


def make_ring_graph(num_nodes):
    src = torch.arange(num_nodes)
    dst = (src + 1) % num_nodes
    return torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])


def main(num_nodes=20, in_channels=4, horizon=3, epochs=50):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    edge_index = make_ring_graph(num_nodes).to(device)
    x = torch.randn(32, num_nodes, in_channels, device=device)
    y = torch.randn(32, num_nodes, horizon, device=device)

    model = ASTGCN(in_channels, hidden=32, K=3, num_nodes=num_nodes, horizon=horizon).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        loss = F.mse_loss(model(x, edge_index), y)
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            print(epoch, loss.item())


if __name__ == "__main__":
    main()
