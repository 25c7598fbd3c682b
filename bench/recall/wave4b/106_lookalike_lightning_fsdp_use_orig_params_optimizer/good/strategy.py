import functools

from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy

from module import LitGPT


class FSDPStrategy:
    def __init__(self, device_id):
        self.device_id = device_id
        self.model = None
        self.optimizers = []

    def setup(self, module: LitGPT):
        policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={nn.Linear})
        self.model = FullyShardedDataParallel(module, auto_wrap_policy=policy, device_id=self.device_id, use_orig_params=True)
        self.optimizers = [module.configure_optimizers()]
        return self.model, self.optimizers
