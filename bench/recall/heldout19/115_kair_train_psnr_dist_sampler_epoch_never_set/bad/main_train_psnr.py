import math
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from model_plain import ModelPlain


class DatasetSR(Dataset):
    def __init__(self, n=800, patch=96, scale=4):
        self.n, self.patch, self.scale = n, patch, scale

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        H = torch.rand(3, self.patch, self.patch)
        L = torch.nn.functional.interpolate(H[None], scale_factor=1 / self.scale, mode="bicubic")[0]
        return {"L": L, "H": H}


def main(opt):
    if opt["dist"]:
        dist.init_process_group("nccl")
        torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())
    opt["rank"] = dist.get_rank() if opt["dist"] else 0

    seed = opt["train"]["manual_seed"]
    if seed is None:
        seed = random.randint(1, 10000)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    dataset_opt = opt["datasets"]["train"]
    train_set = DatasetSR()
    train_size = int(math.ceil(len(train_set) / dataset_opt["dataloader_batch_size"]))
    if opt["dist"]:
        train_sampler = DistributedSampler(train_set, shuffle=dataset_opt["dataloader_shuffle"], drop_last=True, seed=seed)  # expect: TCK206
        train_loader = DataLoader(train_set, batch_size=dataset_opt["dataloader_batch_size"] // opt["num_gpu"],
                                  shuffle=False, num_workers=dataset_opt["dataloader_num_workers"] // opt["num_gpu"],
                                  drop_last=True, pin_memory=True, sampler=train_sampler)
    else:
        train_loader = DataLoader(train_set, batch_size=dataset_opt["dataloader_batch_size"],
                                  shuffle=dataset_opt["dataloader_shuffle"],
                                  num_workers=dataset_opt["dataloader_num_workers"], drop_last=True, pin_memory=True)

    model = ModelPlain(opt)
    model.init_train()

    current_step = 0
    for epoch in range(1000000):  # keep running
        for i, train_data in enumerate(train_loader):
            current_step += 1
            model.update_learning_rate(current_step)
            model.feed_data(train_data)
            model.optimize_parameters(current_step)

            if current_step % opt["train"]["checkpoint_print"] == 0 and opt["rank"] == 0:
                print(epoch, current_step, train_size, model.current_log())
            if current_step % opt["train"]["checkpoint_save"] == 0 and opt["rank"] == 0:
                model.save(current_step)


if __name__ == "__main__":
    main({
        "dist": True, "gpu_ids": [0], "num_gpu": 4,
        "datasets": {"train": {"dataloader_batch_size": 64, "dataloader_shuffle": True, "dataloader_num_workers": 8}},
        "train": {"manual_seed": None, "G_optimizer_lr": 2e-4, "G_scheduler_milestones": [200000, 400000],
                  "checkpoint_print": 200, "checkpoint_save": 5000},
    })
