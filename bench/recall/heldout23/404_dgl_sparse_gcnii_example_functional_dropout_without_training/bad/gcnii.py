"""
GCNII (Simple and Deep Graph Convolutional Networks, https://arxiv.org/abs/2007.02133)
written with DGL's sparse matrix API.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from dgl.data import CoraGraphDataset
from dgl.mock_sparse import create_from_coo, diag, identity
from torch.optim import Adam


class GCNIIConvolution(nn.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        self.out_size = out_size
        self.weight = nn.Linear(in_size, out_size, bias=False)

    def forward(self, A_norm, H, H0, lamda, alpha, l):
        beta = math.log(lamda / l + 1)
        # sparse @ dense
        H = A_norm @ H
        support = (1 - alpha) * H + alpha * H0
        return (1 - beta) * support + beta * self.weight(support)


class GCNII(nn.Module):
    def __init__(self, in_size, out_size, hidden_size, n_layers, lamda, alpha, dropout=0.5):
        super().__init__()
        self.lamda = lamda
        self.alpha = alpha
        self.fc_in = nn.Linear(in_size, hidden_size)
        self.fc_out = nn.Linear(hidden_size, out_size)
        self.convs = nn.ModuleList([GCNIIConvolution(hidden_size, hidden_size) for _ in range(n_layers)])
        self.activation = nn.ReLU()
        self.dropout = dropout

    def forward(self, A_norm, feature):
        H = F.dropout(feature, self.dropout)  # expect: TCK604
        H = self.activation(self.fc_in(H))
        H0 = H
        for i, conv in enumerate(self.convs):
            H = F.dropout(H, self.dropout)  # expect: TCK604
            H = self.activation(conv(A_norm, H, H0, self.lamda, self.alpha, i + 1))
        H = F.dropout(H, self.dropout)  # expect: TCK604
        return self.fc_out(H)


def evaluate(g, pred):
    label = g.ndata["label"]
    val_mask, test_mask = g.ndata["val_mask"], g.ndata["test_mask"]
    val_acc = (pred[val_mask] == label[val_mask]).float().mean()
    test_acc = (pred[test_mask] == label[test_mask]).float().mean()
    return val_acc, test_acc


def train(model, g, A_norm, H):
    label = g.ndata["label"]
    train_mask = g.ndata["train_mask"]
    optimizer = Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    loss_fcn = nn.CrossEntropyLoss()

    for epoch in range(1500):
        model.train()
        logits = model(A_norm, H)
        loss = loss_fcn(logits[train_mask], label[train_mask])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        val_acc, test_acc = evaluate(g, logits.argmax(dim=1))
        if epoch % 20 == 0:
            print(f"epoch {epoch}: loss {loss:.3f}, val acc {val_acc:.3f}, test acc {test_acc:.3f}")


if __name__ == "__main__":
    dev = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    dataset = CoraGraphDataset()
    g = dataset[0].to(dev)
    H = g.ndata["feat"]

    src, dst = g.edges()
    N = g.num_nodes()
    A = create_from_coo(dst, src, shape=(N, N))
    A_hat = A + identity(A.shape, device=dev)
    D_hat = diag(A_hat.sum(1)) ** -0.5
    A_norm = D_hat @ A_hat @ D_hat

    model = GCNII(H.shape[1], dataset.num_classes, hidden_size=64, n_layers=64,
                  lamda=0.5, alpha=0.2, dropout=0.5).to(dev)
    train(model, g, A_norm, H)
