import torch
import torch.nn as nn

from .param_buffer import ShardedParamBuffer


class MegatronFSDP(nn.Module):
    """Wraps a model and shards its parameters; hooks gather them around each forward."""

    def __init__(self, module: torch.nn.Module, device=None, fsdp_unit_modules=None,
                 data_parallel_sharding_strategy="optim_grads_params"):
        super().__init__()
        self.device = device if device is not None else torch.device("cuda", torch.cuda.current_device())
        self.module = module.to(self.device) if device is not None else module
        self.data_parallel_sharding_strategy = data_parallel_sharding_strategy
        self.fsdp_unit_modules = tuple(fsdp_unit_modules or ())
        self.forward_pre_hooks = {}
        self.buffers_by_module = {}
        self._init_param_buffers()
        self._register_fsdp_hooks(self.module)

    def _init_param_buffers(self):
        for module in self.module.modules():
            own = list(module.parameters(recurse=False))
            if own:
                self.buffers_by_module[module] = ShardedParamBuffer(own)
                self.buffers_by_module[module].release()

    def _register_fsdp_hooks(self, root_module):
        def _pre_forward_param_unshard(module, args, kwargs):
            buffer = self.buffers_by_module.get(module)
            if buffer is not None:
                buffer.all_gather()
            return args, kwargs

        def _post_forward_release(module, args, output):
            if isinstance(module, self.fsdp_unit_modules):
                for sub in module.modules():
                    if sub in self.buffers_by_module:
                        self.buffers_by_module[sub].release()
            return output

        for name, module in root_module.named_modules():
            if self.data_parallel_sharding_strategy != "no_shard":
                # the root module owns parameters too (embeddings, final norm):
                # they are gathered only when this hook runs
                self.forward_pre_hooks[f"{name or 'root'} unshard"] = module.register_forward_pre_hook(
                    _pre_forward_param_unshard, prepend=True, with_kwargs=True
                )
            module.register_forward_hook(_post_forward_release)

    def forward(self, *inputs, **kwargs):
        with torch.autograd.profiler.record_function("MegatronFSDP.forward"):
            output = self.module(*inputs, **kwargs)
            return output
