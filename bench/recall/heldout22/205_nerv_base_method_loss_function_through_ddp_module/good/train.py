import os

import torch
from torch.utils.data import Dataset

from method import BaseMethod
from model import SlotDynamics


class SlotSequences(Dataset):
    def __init__(self, n=1024, frames=8, num_slots=7, slot_size=128):
        self.slots = torch.randn(n, frames, num_slots, slot_size)

    def __len__(self):
        return len(self.slots)

    def __getitem__(self, i):
        return {"slots": self.slots[i]}


if __name__ == "__main__":
    params = {
        "grad_accum_steps": 1, "clip_grad": 0.05, "train_batch_size": 64, "lr": 2e-4,
        "ddp_unused_params": False, "slot_recon_loss_w": 1.0, "print_iter": 50, "max_epochs": 10,
    }
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    use_ddp = int(os.environ.get("WORLD_SIZE", 1)) > 1
    method = BaseMethod(SlotDynamics(), SlotSequences(), params, local_rank=local_rank, use_ddp=use_ddp,
                        use_fp16=True)
    method.fit()
