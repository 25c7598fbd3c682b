import torch
from torch.utils.data import DataLoader


class BaseTrainProcess:
    """Owns the outer loop; subclasses implement `hook_train_loop(batch)` for one optimizer step."""

    def __init__(self, dataset, steps, batch_size=4, gradient_accumulation_steps=1, micro_batches=1):
        self.loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True)
        self.steps = steps
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.micro_batches = micro_batches
        self.is_grad_accumulation_step = False

    def hook_train_loop(self, batch):
        raise NotImplementedError

    def run(self):
        step = 0
        while step < self.steps:
            for batch in self.loader:
                self.is_grad_accumulation_step = (step + 1) % self.gradient_accumulation_steps != 0
                if self.micro_batches > 1:
                    batch = list(torch.chunk(batch, self.micro_batches))
                loss = self.hook_train_loop(batch)
                if step % 20 == 0:
                    print(f"step {step}: loss {loss.item():.4f}")
                step += 1
                if step >= self.steps:
                    break
