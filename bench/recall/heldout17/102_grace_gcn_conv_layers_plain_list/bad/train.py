import torch
import torch.nn.functional as F

from classifier import GCN


def make_graph(num_nodes=200, num_edges=800, features=32, device="cpu"):
    x = torch.randn(num_nodes, features, device=device)
    edge_index = torch.randint(0, num_nodes, (2, num_edges), device=device)
    node_y = torch.randint(0, 2, (num_nodes,), device=device)
    edge_y = torch.randint(0, 2, (num_edges,), device=device)
    return x, edge_index, node_y, edge_y


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = GCN(32, [64, 32], dropout=0.2).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=5e-4)
    x, edge_index, node_y, edge_y = make_graph(device=device)

    model.train()
    for epoch in range(100):
        optimizer.zero_grad()
        node_logits, edge_logits = model(x, edge_index)
        loss = F.cross_entropy(node_logits, node_y) + F.cross_entropy(edge_logits, edge_y)
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            print(f"epoch {epoch}: loss={loss.item():.4f}")

    torch.save(model.state_dict(), "classifier.pt")


if __name__ == "__main__":
    main()
