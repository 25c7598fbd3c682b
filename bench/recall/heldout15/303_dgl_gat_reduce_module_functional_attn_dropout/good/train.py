import argparse

import torch
import torch.nn.functional as F
from dgl import DGLGraph
from dgl.data import CoraGraphDataset

from gat import GAT


def evaluate(model, features, labels, mask):
    model.eval()
    with torch.no_grad():
        logits = model(features)[mask]
        return (logits.argmax(dim=1) == labels[mask]).float().mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--num-heads", type=int, default=8)
    parser.add_argument("--num-hidden", type=int, default=8)
    parser.add_argument("--in-drop", type=float, default=0.6)
    parser.add_argument("--attn-drop", type=float, default=0.6)
    parser.add_argument("--lr", type=float, default=0.005)
    args = parser.parse_args()

    data = CoraGraphDataset()
    g = data[0]
    features, labels = g.ndata["feat"], g.ndata["label"]
    train_mask, val_mask, test_mask = g.ndata["train_mask"], g.ndata["val_mask"], g.ndata["test_mask"]
    graph = DGLGraph(g)
    model = GAT(graph, 1, features.shape[1], args.num_hidden, data.num_classes,
                args.num_heads, F.elu, args.in_drop, args.attn_drop, residual=False)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)

    for epoch in range(args.epochs):
        model.train()
        logits = model(features)
        loss = F.cross_entropy(logits[train_mask], labels[train_mask])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        val_acc = evaluate(model, features, labels, val_mask)
        print(f"epoch {epoch:03d} loss {loss.item():.4f} val acc {val_acc:.4f}")
    print(f"test acc {evaluate(model, features, labels, test_mask):.4f}")


if __name__ == "__main__":
    main()
