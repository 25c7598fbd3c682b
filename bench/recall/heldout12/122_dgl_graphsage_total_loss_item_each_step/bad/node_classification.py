import argparse

import dgl
import dgl.nn as dglnn
import torch
import torch.nn as nn
import torch.nn.functional as F
from dgl.data import AsNodePredDataset
from ogb.nodeproppred import DglNodePropPredDataset


class SAGE(nn.Module):
    def __init__(self, in_size, hid_size, out_size):
        super().__init__()
        self.layers = nn.ModuleList([
            dglnn.SAGEConv(in_size, hid_size, "mean"),
            dglnn.SAGEConv(hid_size, hid_size, "mean"),
            dglnn.SAGEConv(hid_size, out_size, "mean"),
        ])
        self.dropout = nn.Dropout(0.5)

    def forward(self, blocks, x):
        h = x
        for i, (layer, block) in enumerate(zip(self.layers, blocks)):
            h = layer(block, h)
            if i != len(self.layers) - 1:
                h = self.dropout(F.relu(h))
        return h


def train(args, device, g, train_idx, model):
    sampler = dgl.dataloading.NeighborSampler([10, 10, 10])
    train_dataloader = dgl.dataloading.DataLoader(
        g, train_idx, sampler, device=device, batch_size=1024, shuffle=True, drop_last=False, num_workers=0,
    )
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=5e-4)
    for epoch in range(args.epochs):
        model.train()
        total_loss = 0
        for it, (input_nodes, output_nodes, blocks) in enumerate(train_dataloader):
            x = blocks[0].srcdata["feat"]
            y = blocks[-1].dstdata["label"]
            y_hat = model(blocks, x)
            loss = F.cross_entropy(y_hat, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_loss += loss.item()  # expect: TCK205
        print(f"Epoch {epoch:05d} | Loss {total_loss / (it + 1):.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = AsNodePredDataset(DglNodePropPredDataset("ogbn-products"))
    g = dataset[0].to(device)
    model = SAGE(g.ndata["feat"].shape[1], 256, dataset.num_classes).to(device)
    train(args, device, g, dataset.train_idx.to(device), model)
