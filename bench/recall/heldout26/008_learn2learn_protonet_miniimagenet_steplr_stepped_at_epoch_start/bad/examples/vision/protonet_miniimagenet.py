#!/usr/bin/env python3
"""Prototypical networks on mini-ImageNet with learn2learn task datasets."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import learn2learn as l2l
from learn2learn.data.transforms import KShots, LoadData, NWays, RemapLabels


def pairwise_distances_logits(a, b):
    n, m = a.shape[0], b.shape[0]
    return -((a.unsqueeze(1).expand(n, m, -1) - b.unsqueeze(0).expand(n, m, -1)) ** 2).sum(dim=2)


def accuracy(predictions, targets):
    predictions = predictions.argmax(dim=1).view(targets.shape)
    return (predictions == targets).sum().float() / targets.size(0)


class Convnet(nn.Module):
    def __init__(self, x_dim=3, hid_dim=64, z_dim=64):
        super().__init__()
        self.encoder = l2l.vision.models.ConvBase(output_size=z_dim, hidden=hid_dim, channels=x_dim)
        self.out_channels = 1600

    def forward(self, x):
        x = self.encoder(x)
        return x.view(x.size(0), -1)


def fast_adapt(model, batch, ways, shot, query_num, metric=None, device=None):
    """Loss and accuracy of one episode: class prototypes from the support set, queries classified by distance."""
    if metric is None:
        metric = pairwise_distances_logits
    data, labels = batch
    data, labels = data.to(device), labels.to(device)

    order = torch.sort(labels)
    data = data.squeeze(0)[order.indices].squeeze(0)
    labels = labels.squeeze(0)[order.indices].squeeze(0)

    embeddings = model(data)
    support_indices = torch.zeros(data.size(0)).byte()
    selection = torch.arange(ways) * (shot + query_num)
    for offset in range(shot):
        support_indices[selection + offset] = 1
    support = embeddings[support_indices].reshape(ways, shot, -1).mean(dim=1)
    query = embeddings[1 - support_indices]
    labels = labels[1 - support_indices].long()

    logits = metric(query, support)
    return F.cross_entropy(logits, labels), accuracy(logits, labels)


def episodes(dataset, ways, samples, num_tasks=-1):
    dataset = l2l.data.MetaDataset(dataset)
    transforms = [NWays(dataset, ways), KShots(dataset, samples), LoadData(dataset), RemapLabels(dataset)]
    tasks = l2l.data.TaskDataset(dataset, task_transforms=transforms, num_tasks=num_tasks)
    return DataLoader(tasks, pin_memory=True, shuffle=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-epoch", type=int, default=250)
    parser.add_argument("--shot", type=int, default=1)
    parser.add_argument("--test-way", type=int, default=5)
    parser.add_argument("--test-shot", type=int, default=1)
    parser.add_argument("--test-query", type=int, default=30)
    parser.add_argument("--train-query", type=int, default=15)
    parser.add_argument("--train-way", type=int, default=30)
    parser.add_argument("--gpu", default=0)
    args = parser.parse_args()

    device = torch.device("cpu")
    if args.gpu and torch.cuda.device_count():
        torch.cuda.manual_seed(43)
        device = torch.device("cuda")

    model = Convnet()
    model.to(device)

    path_data = "./data"
    train_loader = episodes(l2l.vision.datasets.MiniImagenet(root=path_data, mode="train"),
                            args.train_way, args.train_query + args.shot)
    valid_loader = episodes(l2l.vision.datasets.MiniImagenet(root=path_data, mode="validation"),
                            args.test_way, args.test_query + args.test_shot, num_tasks=200)
    test_loader = episodes(l2l.vision.datasets.MiniImagenet(root=path_data, mode="test"),
                           args.test_way, args.test_query + args.test_shot, num_tasks=2000)

    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)

    for epoch in range(1, args.max_epoch + 1):
        lr_scheduler.step()  # expect: TCK104

        model.train()
        loss_ctr, n_loss, n_acc = 0, 0, 0
        for i in range(100):
            batch = next(iter(train_loader))
            loss, acc = fast_adapt(model, batch, args.train_way, args.shot, args.train_query,
                                   metric=pairwise_distances_logits, device=device)
            loss_ctr += 1
            n_loss += loss.item()
            n_acc += acc.item()

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        print("epoch {}, train, loss={:.4f} acc={:.4f}".format(epoch, n_loss / loss_ctr, n_acc / loss_ctr))

        model.eval()
        loss_ctr, n_loss, n_acc = 0, 0, 0
        with torch.no_grad():
            for i, batch in enumerate(valid_loader):
                loss, acc = fast_adapt(model, batch, args.test_way, args.test_shot, args.test_query,
                                       metric=pairwise_distances_logits, device=device)
                loss_ctr += 1
                n_loss += loss.item()
                n_acc += acc.item()
        print("epoch {}, val, loss={:.4f} acc={:.4f}".format(epoch, n_loss / loss_ctr, n_acc / loss_ctr))

    loss_ctr, n_acc = 0, 0
    with torch.no_grad():
        for i, batch in enumerate(test_loader, 1):
            loss, acc = fast_adapt(model, batch, args.test_way, args.test_shot, args.test_query,
                                   metric=pairwise_distances_logits, device=device)
            loss_ctr += 1
            n_acc += acc.item()
            print("batch {}: {:.2f}({:.2f})".format(i, n_acc / loss_ctr * 100, acc.item() * 100))
