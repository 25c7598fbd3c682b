import torch
import torch.nn as nn

from utils import see_memory_usage


class TrainingEngine:
    """Minimal engine: owns the model and optimizer, runs forward/backward/step."""

    def __init__(self, model: nn.Module, lr=1e-3, memory_breakdown=False):
        self.device = torch.device("cuda")
        self.module = model.to(self.device)
        self.optimizer = torch.optim.AdamW(self.module.parameters(), lr=lr)
        self.memory_breakdown = memory_breakdown
        self.global_steps = 0

    def forward(self, *inputs):
        return self.module(*inputs)

    def backward(self, loss):
        loss.backward()

    def step(self):
        see_memory_usage(f"before step {self.global_steps}", force=self.memory_breakdown)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.global_steps += 1
        see_memory_usage(f"after step {self.global_steps}", force=self.memory_breakdown)


def main():
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024))
    engine = TrainingEngine(model, memory_breakdown=True)
    for _ in range(20):
        x = torch.randn(32, 1024, device=engine.device)
        loss = engine.forward(x).pow(2).mean()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
