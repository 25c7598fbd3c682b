import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.optim as optim
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, DistributedSampler
from transformers import LlamaForCausalLM, default_data_collator

from train_utils import train


@dataclass
class TrainConfig:
    model_name: str = "meta-llama/Llama-2-7b-hf"
    enable_fsdp: bool = False
    use_fp16: bool = False
    num_epochs: int = 3
    batch_size_training: int = 4
    gradient_accumulation_steps: int = 4
    gradient_clipping: float = 1.0
    lr: float = 1e-4
    weight_decay: float = 0.0
    gamma: float = 0.85
    seed: int = 42


def main(train_config, dataset_train):
    torch.cuda.manual_seed(train_config.seed)
    torch.manual_seed(train_config.seed)
    local_rank = rank = None
    if train_config.enable_fsdp:
        dist.init_process_group("nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        rank = int(os.environ["RANK"])
        torch.cuda.set_device(local_rank)

    model = LlamaForCausalLM.from_pretrained(train_config.model_name)
    if train_config.enable_fsdp:
        model = FSDP(model, device_id=torch.cuda.current_device(), use_orig_params=True)
    else:
        model.to("cuda")

    sampler = DistributedSampler(dataset_train, rank=dist.get_rank(), num_replicas=dist.get_world_size(), shuffle=True) if train_config.enable_fsdp else None
    train_dataloader = DataLoader(
        dataset_train,
        batch_size=train_config.batch_size_training,
        sampler=sampler,
        drop_last=True,
        collate_fn=default_data_collator,
    )
    optimizer = optim.AdamW(model.parameters(), lr=train_config.lr, weight_decay=train_config.weight_decay)
    scheduler = StepLR(optimizer, step_size=1, gamma=train_config.gamma)

    results = train(
        model,
        train_dataloader,
        None,
        optimizer,
        scheduler,
        train_config.gradient_accumulation_steps,
        train_config,
        local_rank if train_config.enable_fsdp else None,
        rank if train_config.enable_fsdp else None,
    )
    if not train_config.enable_fsdp or rank == 0:
        print(results)
