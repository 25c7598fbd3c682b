import argparse
import os

import deepspeed
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from agent import DeepSpeedAgent
from model import LAMMPEFTModel


class InstructionDataset(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, idx):
        ids = torch.randint(0, 1000, (32,))
        return {"vision": torch.randn(512), "input_ids": ids, "labels": ids}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_path", default="ckpt/lamm")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", 0)))
    args = vars(parser.parse_args())

    deepspeed.init_distributed(dist_backend="nccl")
    torch.cuda.set_device(args["local_rank"])

    dataset = InstructionDataset()
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)

    args.update({
        "log_path": "logs",
        "logging_step": 10,
        "total_steps": len(loader) * args["epochs"],
        "deepspeed": {
            "train_micro_batch_size_per_gpu": 8,
            "zero_optimization": {"stage": 2},
            "bf16": {"enabled": True},
            "optimizer": {"type": "AdamW", "params": {"lr": 5e-4}},
            "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_num_steps": 10}},
        },
    })
    agent = DeepSpeedAgent(LAMMPEFTModel(), args)

    current_step = 0
    for epoch in range(args["epochs"]):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = {k: v.cuda() for k, v in batch.items()}
            agent.train_model(batch, current_step=current_step)
            current_step += 1
        agent.save_model(args["save_path"], epoch + 1)

    agent.save_model(args["save_path"], 0)


if __name__ == "__main__":
    main()
