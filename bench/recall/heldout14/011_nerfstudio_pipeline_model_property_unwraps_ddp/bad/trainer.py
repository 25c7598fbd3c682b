import functools
import os

import torch
import torch.distributed as dist

from pipeline import VanillaPipeline


class RayDataManager:
    """Samples random rays (origin, direction) and their target pixel colours from pre-computed tensors."""

    def __init__(self, path, device, rays_per_batch=4096, rank=0, world_size=1):
        data = torch.load(path)
        self.origins, self.directions, self.colors = data["origins"], data["directions"], data["colors"]
        self.device, self.rays_per_batch = device, rays_per_batch
        self.generator = torch.Generator().manual_seed(1234 + rank)

    def _sample(self):
        idx = torch.randint(0, self.origins.shape[0], (self.rays_per_batch,), generator=self.generator)
        rays = {"origins": self.origins[idx].to(self.device), "directions": self.directions[idx].to(self.device)}
        return rays, {"image": self.colors[idx].to(self.device)}

    def next_train(self, step):
        return self._sample()

    def next_eval(self, step):
        return self._sample()


class Trainer:
    def __init__(self, pipeline, lr=5e-4, mixed_precision=True, device="cuda"):
        self.pipeline = pipeline
        self.optimizer = torch.optim.Adam(pipeline.parameters(), lr=lr)
        self.grad_scaler = torch.amp.GradScaler("cuda", enabled=mixed_precision)
        self.mixed_precision = mixed_precision
        self.device = device

    def train_iteration(self, step):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cuda", enabled=self.mixed_precision):
            _, loss_dict = self.pipeline.get_train_loss_dict(step=step)
            loss = functools.reduce(torch.add, loss_dict.values())
        self.grad_scaler.scale(loss).backward()
        self.grad_scaler.step(self.optimizer)
        self.grad_scaler.update()
        return loss.detach()

    def train(self, max_num_iterations=30000, log_every=100):
        for step in range(max_num_iterations):
            loss = self.train_iteration(step)
            if step % log_every == 0:
                print(f"step {step}: loss {loss.item():.5f}")


def main():
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    world_size = int(os.environ.get("WORLD_SIZE", 1))
    if world_size > 1:
        dist.init_process_group("nccl")
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    datamanager = RayDataManager("rays.pt", device, rank=local_rank, world_size=world_size)
    pipeline = VanillaPipeline(datamanager, device, world_size=world_size, local_rank=local_rank)
    Trainer(pipeline, device=device).train()


if __name__ == "__main__":
    main()
