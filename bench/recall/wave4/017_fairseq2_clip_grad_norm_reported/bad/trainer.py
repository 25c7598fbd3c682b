import torch
from torch.distributed.fsdp import fully_shard
from torch.nn.utils import clip_grad_norm_


def clip_gradient_norm(module, max_norm):
    return clip_grad_norm_(module.parameters(), max_norm=max_norm or float("inf"))


class Trainer:
    def __init__(self, model, optimizer, metric_recorder, max_grad_norm=1.0):
        for layer in model.decoder.layers:
            fully_shard(layer)
        fully_shard(model)
        self.model = model
        self.optimizer = optimizer
        self.metric_recorder = metric_recorder
        self.max_grad_norm = max_grad_norm

    def step(self, batch, step_nr):
        loss = self.model(batch).loss
        loss.backward()
        grad_norm = clip_gradient_norm(self.model, self.max_grad_norm)
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.metric_recorder.record({"loss": float(loss), "grad_norm": float(grad_norm)}, step_nr)  # expect: TCK213
