import torch
from torch import nn
from torch.distributed.device_mesh import init_device_mesh

from sharding import prepare_fully_shard


class Net(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = torch.relu(block(x))
        return x


def main(loader, world_size):
    mesh = init_device_mesh("cuda", (world_size,))
    model = Net(1024, 8).cuda()
    prepare_fully_shard(model, mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
