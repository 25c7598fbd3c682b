import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn import BatchNorm1d, Linear, ReLU, Sequential
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from torch_geometric.datasets import TUDataset
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GINConv, global_mean_pool


class GIN(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels, num_layers=3, dropout=0.5):
        super().__init__()
        self.dropout = dropout
        self.convs = torch.nn.ModuleList()
        for i in range(num_layers):
            mlp = Sequential(
                Linear(in_channels if i == 0 else hidden_channels, 2 * hidden_channels),
                BatchNorm1d(2 * hidden_channels),
                ReLU(),
                Linear(2 * hidden_channels, hidden_channels),
            )
            self.convs.append(GINConv(mlp, train_eps=True))
        self.lin = Linear(hidden_channels, out_channels)

    def forward(self, x, edge_index, batch):
        for conv in self.convs:
            x = F.relu(conv(x, edge_index))
            x = F.dropout(x, p=self.dropout, training=self.training)
        x = global_mean_pool(x, batch)
        return self.lin(x)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for data in loader:
        data = data.to(device)
        pred = model(data.x, data.edge_index, data.batch).argmax(dim=-1)
        correct += int((pred == data.y).sum())
    return correct / len(loader.dataset)


def run(rank, world_size, root):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12355"
    dist.init_process_group("nccl", rank=rank, world_size=world_size)

    dataset = TUDataset(root, name="PROTEINS").shuffle()
    n_train = int(0.8 * len(dataset))
    train_dataset, test_dataset = dataset[:n_train], dataset[n_train:]

    train_sampler = DistributedSampler(train_dataset, num_replicas=world_size, rank=rank)
    train_loader = DataLoader(train_dataset, batch_size=128, sampler=train_sampler)
    test_loader = DataLoader(test_dataset, batch_size=256)

    torch.manual_seed(12345)
    model = GIN(dataset.num_features, 128, dataset.num_classes).to(rank)
    model = DistributedDataParallel(model, device_ids=[rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)

    for epoch in range(1, 51):
        model.train()
        train_sampler.set_epoch(epoch)
        total_loss = torch.zeros(2, device=rank)
        for data in train_loader:
            data = data.to(rank)
            optimizer.zero_grad()
            out = model(data.x, data.edge_index, data.batch)
            loss = F.cross_entropy(out, data.y)
            loss.backward()
            optimizer.step()
            total_loss[0] += loss.detach() * data.num_graphs
            total_loss[1] += data.num_graphs
        dist.all_reduce(total_loss, op=dist.ReduceOp.SUM)

        if rank == 0:
            acc = evaluate(model.module, test_loader, rank)
            print(f"Epoch {epoch:03d} loss {float(total_loss[0] / total_loss[1]):.4f} test acc {acc:.4f}")
        dist.barrier()

    dist.destroy_process_group()


if __name__ == "__main__":
    root = os.path.join(os.path.dirname(__file__), "data", "TUDataset")
    TUDataset(root, name="PROTEINS")
    world_size = torch.cuda.device_count()
    mp.spawn(run, args=(world_size, root), nprocs=world_size, join=True)
