import os

import torch
import torch.distributed as dist
from torch import nn
from torch_geometric.datasets import QM9
from torch_geometric.nn import GCNConv, global_mean_pool

from load_data import create_dataloaders, split_dataset
from train_validate_test import train_validate_test


class GCNStack(nn.Module):
    def __init__(self, in_dim, hidden_dim=64, num_layers=3, out_dim=1):
        super().__init__()
        dims = [in_dim] + [hidden_dim] * num_layers
        self.convs = nn.ModuleList(GCNConv(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.head = nn.Linear(hidden_dim, out_dim)

    def forward(self, x, edge_index, batch):
        for conv in self.convs:
            x = torch.relu(conv(x, edge_index))
        return self.head(global_mean_pool(x, batch))


def setup_ddp():
    if "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1:
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def run_training(config):
    device = setup_ddp()
    dataset = QM9(root="dataset/qm9")
    dataset.data.y = dataset.data.y[:, 10:11]
    train, val, test = split_dataset(dataset, config["Training"]["perc_train"])
    train_loader, val_loader, test_loader, sampler_list = create_dataloaders(train, val, test, config["Training"]["batch_size"])

    model = GCNStack(dataset.num_features).to(device)
    if dist.is_initialized():
        model = nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["Training"]["learning_rate"])
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=5)

    train_validate_test(model, optimizer, train_loader, val_loader, test_loader, sampler_list, scheduler, config, device)


if __name__ == "__main__":
    run_training({"Training": {"num_epoch": 100, "perc_train": 0.7, "batch_size": 64, "learning_rate": 1e-3}})
