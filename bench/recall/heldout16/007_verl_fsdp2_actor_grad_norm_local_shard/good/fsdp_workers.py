import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import MixedPrecisionPolicy
from transformers import AutoModelForCausalLM

from dp_actor import DataParallelPPOActor
from fsdp_utils import apply_fsdp2


class ActorRolloutWorker:
    def __init__(self, config):
        self.config = config
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

    def init_model(self):
        model = AutoModelForCausalLM.from_pretrained(self.config["model_path"], torch_dtype=torch.float32)
        model.gradient_checkpointing_enable()
        fsdp_kwargs = {
            "mp_policy": MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32),
            "reshard_after_forward": True,
        }
        apply_fsdp2(model, fsdp_kwargs, model._no_split_modules)
        optimizer = torch.optim.AdamW(model.parameters(), lr=self.config["lr"], weight_decay=0.01)
        self.actor = DataParallelPPOActor(self.config, actor_module=model, actor_optimizer=optimizer)

    def update_actor(self, mini_batches):
        metrics = self.actor.update_policy(mini_batches)
        if dist.get_rank() == 0:
            print({k: sum(v) / len(v) for k, v in metrics.items()})
        return metrics
