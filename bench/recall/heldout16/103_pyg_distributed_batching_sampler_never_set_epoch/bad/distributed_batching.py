import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from ogb.graphproppred import Evaluator, PygGraphPropPredDataset
from ogb.graphproppred.mol_encoder import AtomEncoder, BondEncoder
from torch.nn import BatchNorm1d, Linear, ReLU, Sequential
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

import torch_geometric.transforms as T
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GINEConv, global_mean_pool


class GIN(torch.nn.Module):
    def __init__(self, hidden_channels, out_channels, num_layers=3, dropout=0.5):
        super().__init__()
        self.dropout = dropout
        self.atom_encoder = AtomEncoder(hidden_channels)
        self.bond_encoder = BondEncoder(hidden_channels)
        self.convs = torch.nn.ModuleList()
        for _ in range(num_layers):
            mlp = Sequential(
                Linear(hidden_channels, 2 * hidden_channels),
                BatchNorm1d(2 * hidden_channels),
                ReLU(),
                Linear(2 * hidden_channels, hidden_channels),
                BatchNorm1d(hidden_channels),
                ReLU(),
            )
            self.convs.append(GINEConv(mlp, train_eps=True))
        self.lin = Linear(hidden_channels, out_channels)

    def forward(self, x, edge_index, edge_attr, batch):
        x = self.atom_encoder(x)
        edge_attr = self.bond_encoder(edge_attr)
        for conv in self.convs:
            x = conv(x, edge_index, edge_attr)
            x = F.dropout(x, p=self.dropout, training=self.training)
        x = global_mean_pool(x, batch)
        return self.lin(x)


@torch.no_grad()
def evaluate(model, loader, evaluator, device):
    model.eval()
    y_pred, y_true = [], []
    for data in loader:
        data = data.to(device)
        y_pred.append(model(data.x, data.edge_index, data.edge_attr, data.batch))
        y_true.append(data.y)
    return evaluator.eval({"y_pred": torch.cat(y_pred), "y_true": torch.cat(y_true)})["rocauc"]


def run(rank, world_size, dataset_name, root):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12355"
    dist.init_process_group("nccl", rank=rank, world_size=world_size)

    dataset = PygGraphPropPredDataset(dataset_name, root)
    split_idx = dataset.get_idx_split()
    evaluator = Evaluator(dataset_name)

    train_dataset = dataset[split_idx["train"]]
    train_sampler = DistributedSampler(train_dataset, num_replicas=world_size, rank=rank)  # expect: TCK206
    train_loader = DataLoader(train_dataset, batch_size=128, sampler=train_sampler)

    torch.manual_seed(12345)
    model = GIN(128, dataset.num_tasks).to(rank)
    model = DistributedDataParallel(model, device_ids=[rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    criterion = torch.nn.BCEWithLogitsLoss()

    if rank == 0:
        val_loader = DataLoader(dataset[split_idx["valid"]], batch_size=256)

    for epoch in range(1, 51):
        model.train()
        total_loss = torch.zeros(2, device=rank)
        for data in train_loader:
            data = data.to(rank)
            optimizer.zero_grad()
            logits = model(data.x, data.edge_index, data.edge_attr, data.batch)
            loss = criterion(logits, data.y.to(torch.float))
            loss.backward()
            optimizer.step()
            total_loss[0] += float(loss) * logits.size(0)
            total_loss[1] += data.num_graphs

        dist.all_reduce(total_loss, op=dist.ReduceOp.SUM)
        if rank == 0:
            val_rocauc = evaluate(model.module, val_loader, evaluator, rank)
            print(f"Epoch: {epoch:03d}, Loss: {float(total_loss[0] / total_loss[1]):.4f}, Val: {val_rocauc:.4f}")
        dist.barrier()

    dist.destroy_process_group()


if __name__ == "__main__":
    dataset_name = "ogbg-molhiv"
    root = "../../data/OGB"
    PygGraphPropPredDataset(dataset_name, root)  # download once on the main process
    world_size = torch.cuda.device_count()
    mp.spawn(run, args=(world_size, dataset_name, root), nprocs=world_size, join=True)
