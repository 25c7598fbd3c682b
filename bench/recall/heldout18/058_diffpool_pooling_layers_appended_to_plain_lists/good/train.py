import torch
import torch.nn.functional as F

from encoders import SoftPoolingGcnEncoder


def main(epochs=20, device="cuda" if torch.cuda.is_available() else "cpu"):
    n_graphs, max_nodes, feat_dim, n_classes = 256, 100, 16, 2
    x = torch.randn(n_graphs, max_nodes, feat_dim)
    adj = (torch.rand(n_graphs, max_nodes, max_nodes) > 0.9).float()
    adj = ((adj + adj.transpose(1, 2)) > 0).float()
    labels = torch.randint(0, n_classes, (n_graphs,))

    model = SoftPoolingGcnEncoder(max_nodes, feat_dim, 30, 30, n_classes, num_layers=3,
                                  assign_hidden_dim=30, num_pooling=2).to(device)
    optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(n_graphs)
        for start in range(0, n_graphs, 20):
            idx = perm[start:start + 20]
            logits = model(x[idx].to(device), adj[idx].to(device))
            loss = F.cross_entropy(logits, labels[idx].to(device))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
