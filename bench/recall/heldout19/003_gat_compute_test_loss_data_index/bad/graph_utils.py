import numpy as np
import torch


def load_citation_graph(n_nodes=300, n_feats=64, n_classes=5, seed=0):
    rng = np.random.default_rng(seed)
    feats = torch.tensor(rng.normal(size=(n_nodes, n_feats)), dtype=torch.float32)
    labels = torch.tensor(rng.integers(0, n_classes, size=n_nodes))
    adj = torch.tensor(rng.random((n_nodes, n_nodes)) < 0.03, dtype=torch.float32)
    adj = ((adj + adj.t() + torch.eye(n_nodes)) > 0).float()
    idx = torch.randperm(n_nodes)
    return adj, feats, labels, idx[:140], idx[140:220], idx[220:]


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double().sum()
    return correct / len(labels)
