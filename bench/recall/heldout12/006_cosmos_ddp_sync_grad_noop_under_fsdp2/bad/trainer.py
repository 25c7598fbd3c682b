import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

import distributed


class PolicyNet(nn.Module):
    def __init__(self, dim=1024, depth=8, action_dim=32):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(dim, 16, batch_first=True) for _ in range(depth)])
        self.head = nn.Linear(dim, action_dim)

    def forward(self, obs):
        h = self.inp(obs)
        for block in self.blocks:
            h = block(h)
        return self.head(h[:, -1])


class Trainer:
    def __init__(self, grad_accum_iter=4, shard=8):
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        dist.init_process_group("nccl")
        replicate = dist.get_world_size() // shard
        mesh = init_device_mesh("cuda", (replicate, shard), mesh_dim_names=("replicate", "shard"))

        model = PolicyNet().cuda()
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        for block in model.blocks:
            fully_shard(block, mesh=mesh, mp_policy=mp)
        fully_shard(model, mesh=mesh, mp_policy=mp)
        self.model = model
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.grad_accum_iter = grad_accum_iter

    def training_step(self, batch, iteration):
        is_boundary = (iteration + 1) % self.grad_accum_iter == 0
        with distributed.ddp_sync_grad(self.model, is_boundary):  # expect: TCK214
            pred = self.model(batch["obs"])
            loss = F.mse_loss(pred.float(), batch["action"]) / self.grad_accum_iter
            loss.backward()
        if is_boundary:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    def train(self, max_iter=1000):
        self.model.train()
        for iteration in range(max_iter):
            batch = {
                "obs": torch.randn(64, 16, 1024, device="cuda"),
                "action": torch.randn(64, 32, device="cuda"),
            }
            loss = self.training_step(batch, iteration)
            if iteration % 100 == 0 and dist.get_rank() == 0:
                print(iteration, loss.item())


if __name__ == "__main__":
    Trainer().train()
