import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


class Launcher:
    def __init__(self, model_dir, model, optimizer):
        self.model_dir = model_dir
        self.local_rank = int(os.environ["LOCAL_RANK"])
        dist.init_process_group("nccl")
        torch.cuda.set_device(self.local_rank)
        self.model = DistributedDataParallel(model.cuda(), device_ids=[self.local_rank])
        self.optimizer = optimizer
        self.global_step = 0

    def checkpoint_path(self):
        return os.path.join(self.model_dir, "model-last.pth")

    def save_model(self):
        if dist.get_rank() == 0:
            torch.save(
                {"model": self.model.module.state_dict(), "opt": self.optimizer.state_dict(), "step": self.global_step},
                self.checkpoint_path(),
            )

    def resume(self):
        ckpt = torch.load(self.checkpoint_path())  # expect: TCK215
        self.model.module.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["opt"])
        self.global_step = ckpt["step"]
