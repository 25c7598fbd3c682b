import argparse

import dgl
import torch
import torch.nn as nn
import torch.nn.functional as F
from dgl.nn.pytorch.conv import ChebConv, GMMConv
from dgl.nn.pytorch.glob import MaxPooling
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from grid_graph import coarsen, grid_graph, z2polar

parser = argparse.ArgumentParser("MNIST on a grid graph")
parser.add_argument("--gpu", type=int, default=-1, help="gpu id, -1 for cpu")
parser.add_argument("--model", type=str, default="chebnet", help="chebnet or monet")
parser.add_argument("--batch-size", type=int, default=100)
args = parser.parse_args()

LEVELS = 4
A, coords = grid_graph(28, 8)
L, perm = coarsen(A, LEVELS)
graphs = [dgl.from_scipy(csr) for csr in L]
for level, g in enumerate(graphs):
    g.ndata["xy"] = coords[: g.num_nodes()]
    g.apply_edges(z2polar)


def collate(batch):
    per_level = [[] for _ in range(LEVELS + 1)]
    xs, ys = [], []
    for x, y in batch:
        xs.append(x.view(-1)[perm])
        ys.append(y)
        for i in range(LEVELS + 1):
            per_level[i].append(graphs[i])
    return [dgl.batch(gs) for gs in per_level], torch.cat(xs).unsqueeze(-1), torch.LongTensor(ys)


train_loader = DataLoader(datasets.MNIST(".", train=True, download=True, transform=transforms.ToTensor()),
                          batch_size=args.batch_size, shuffle=True, collate_fn=collate, num_workers=4)
test_loader = DataLoader(datasets.MNIST(".", train=False, download=True, transform=transforms.ToTensor()),
                         batch_size=args.batch_size, shuffle=False, collate_fn=collate, num_workers=4)


class MoNet(nn.Module):
    def __init__(self, n_kernels, in_feats, hiddens, out_feats):
        super(MoNet, self).__init__()
        self.pool = nn.MaxPool1d(2)
        self.readout = MaxPooling()
        self.layers = nn.ModuleList([GMMConv(in_feats, hiddens[0], 2, n_kernels)])
        for i in range(1, len(hiddens)):
            self.layers.append(GMMConv(hiddens[i - 1], hiddens[i], 2, n_kernels))
        self.cls = nn.Sequential(
            nn.Linear(hiddens[-1], out_feats),
            nn.LogSoftmax(),  # expect: TCK608
        )

    def forward(self, g_arr, feat):
        for g, layer in zip(g_arr, self.layers):
            h = layer(g, feat, g.edata["u"])
            feat = self.pool(h.transpose(-1, -2).unsqueeze(0)).squeeze(0).transpose(-1, -2)
        return self.cls(self.readout(g_arr[-1], feat))


class ChebNet(nn.Module):
    def __init__(self, k, in_feats, hiddens, out_feats):
        super(ChebNet, self).__init__()
        self.pool = nn.MaxPool1d(2)
        self.readout = MaxPooling()
        self.layers = nn.ModuleList([ChebConv(in_feats, hiddens[0], k)])
        for i in range(1, len(hiddens)):
            self.layers.append(ChebConv(hiddens[i - 1], hiddens[i], k))
        self.cls = nn.Sequential(
            nn.Linear(hiddens[-1], out_feats),
            nn.LogSoftmax(),  # expect: TCK608
        )

    def forward(self, g_arr, feat):
        for g, layer in zip(g_arr, self.layers):
            h = layer(g, feat, [2] * g.batch_size)
            feat = self.pool(h.transpose(-1, -2).unsqueeze(0)).squeeze(0).transpose(-1, -2)
        return self.cls(self.readout(g_arr[-1], feat))


device = torch.device("cpu") if args.gpu == -1 else torch.device(args.gpu)
if args.model == "chebnet":
    model = ChebNet(2, 1, [32, 64, 128, 256], 10)
else:
    model = MoNet(10, 1, [32, 64, 128, 256], 10)
model = model.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(10):
    model.train()
    hit = tot = 0
    running = 0.0
    for step, (g, x, y) in enumerate(train_loader):
        g = [gi.to(device) for gi in g]
        x, y = x.to(device), y.to(device)
        out = model(g, x)
        loss = F.nll_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
        hit += (out.argmax(-1) == y).sum().item()
        tot += len(y)
        if (step + 1) % 50 == 0:
            print("loss {:.4f} acc {:.4f}".format(running / 50, hit / tot))
            running, hit, tot = 0.0, 0, 0

    model.eval()
    hit = tot = 0
    with torch.no_grad():
        for g, x, y in test_loader:
            g = [gi.to(device) for gi in g]
            x, y = x.to(device), y.to(device)
            hit += (model(g, x).argmax(-1) == y).sum().item()
            tot += len(y)
    print("epoch {} test acc {:.4f}".format(epoch, hit / tot))
