import contextlib

import torch
from torch.distributed.fsdp import FSDPModule, fully_shard


class FSDPEngine:
    def __init__(self, module, optimizer, micro_batches_per_step):
        for layer in module.model.layers:
            fully_shard(layer)
        fully_shard(module)
        self.module = module
        self.optimizer = optimizer
        self.micro_batches_per_step = micro_batches_per_step

    @contextlib.contextmanager
    def no_sync(self):
        modules = [m for m in self.module.modules() if isinstance(m, FSDPModule)]
        for m in modules:
            m.set_requires_gradient_sync(False, recurse=False)
        try:
            yield
        finally:
            for m in modules:
                m.set_requires_gradient_sync(True, recurse=False)

    def train_step(self, micro_batches):
        for i, batch in enumerate(micro_batches):
            last = i == len(micro_batches) - 1
            ctx = contextlib.nullcontext() if last else self.no_sync()
            with ctx:
                loss = self.module(**batch).loss / len(micro_batches)
                loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
