from collections import OrderedDict

import torch


def stratified_train_test_split(X, Y, test_size=0.2, seed=0):
    g = torch.Generator().manual_seed(seed)
    train_idx, test_idx = [], []
    for label in torch.unique(Y):
        idx = torch.nonzero(Y == label).flatten()
        idx = idx[torch.randperm(len(idx), generator=g)]
        n_test = max(1, int(len(idx) * test_size))
        test_idx.append(idx[:n_test])
        train_idx.append(idx[n_test:])
    train_idx, test_idx = torch.cat(train_idx), torch.cat(test_idx)
    return X[train_idx], X[test_idx], Y[train_idx], Y[test_idx]


def generate_support(train_x, train_y, support_size, selected_labels):
    support = OrderedDict()
    for label in selected_labels:
        idx = torch.nonzero(train_y == label).flatten()
        support[label] = train_x[idx[torch.randperm(len(idx))[:support_size]]]
    return support


def generate_episode(train_x, train_y, support_size, way, episode_size):
    labels = torch.unique(train_y)
    selected = labels[torch.randperm(len(labels))[:way]].tolist()
    support = generate_support(train_x, train_y, support_size, selected)
    mask = torch.isin(train_y, torch.tensor(selected, device=train_y.device))
    idx = torch.nonzero(mask).flatten()
    idx = idx[torch.randperm(len(idx))[:episode_size]]
    episode_y = torch.tensor([selected.index(y) for y in train_y[idx].tolist()])
    return support, train_x[idx], episode_y
