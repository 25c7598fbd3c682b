import torch
import torch.nn as nn

from GAT import GAT


def main():
    torch.manual_seed(0)
    num_nodes, num_features, num_classes = 2708, 64, 7
    node_features = torch.randn(num_nodes, num_features)
    edge_index = torch.randint(0, num_nodes, (2, 10556))
    labels = torch.randint(0, num_classes, (num_nodes,))
    train_idx = torch.arange(0, 140)

    gat = GAT(num_of_layers=2, num_heads_per_layer=[8, 1], num_features_per_layer=[num_features, 8, num_classes])
    optimizer = torch.optim.Adam(gat.parameters(), lr=5e-3, weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(200):
        gat.train()
        logits, _ = gat((node_features, edge_index))
        loss = loss_fn(logits[train_idx], labels[train_idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if epoch % 50 == 0:
            print(epoch, loss.item())


if __name__ == "__main__":
    main()
