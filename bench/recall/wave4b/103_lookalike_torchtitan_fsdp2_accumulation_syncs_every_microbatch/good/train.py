import torch
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def apply_fsdp(model, mesh):
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in model.layers:
        fully_shard(block, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)
    return model


class Trainer:
    def __init__(self, model, mesh, loss_fn, gradient_accumulation_steps):
        self.model = apply_fsdp(model, mesh)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=3e-4)
        self.loss_fn = loss_fn
        self.gradient_accumulation_steps = gradient_accumulation_steps

    def train_step(self, microbatches):
        for inputs, labels in microbatches:
            pred = self.model(inputs)
            loss = self.loss_fn(pred.float(), labels) / self.gradient_accumulation_steps
            loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad()
