import math

import torch
from torch.utils.data import DataLoader, Dataset

from sr_model import SRModel


class PairedPatches(Dataset):
    def __init__(self, n=256, size=32, scale=4):
        self.gt = torch.rand(n, 3, size * scale, size * scale)
        self.lq = torch.nn.functional.interpolate(self.gt, scale_factor=1 / scale, mode="bicubic")

    def __len__(self):
        return len(self.gt)

    def __getitem__(self, i):
        return {"LQ": self.lq[i], "GT": self.gt[i]}


def main():
    opt = {
        "gpu_ids": [0] if torch.cuda.is_available() else None,
        "is_train": True,
        "path": {"models": "."},
        "train": {"lr_G": 2e-4, "lr_steps": [2000, 4000], "lr_gamma": 0.5, "niter": 5000, "warmup_iter": 500},
    }
    loader = DataLoader(PairedPatches(), batch_size=16, shuffle=True, drop_last=True)
    model = SRModel(opt)
    total_iters = opt["train"]["niter"]
    total_epochs = math.ceil(total_iters / len(loader))

    current_step = 0
    for epoch in range(total_epochs):
        for train_data in loader:
            current_step += 1
            if current_step > total_iters:
                break
            model.feed_data(train_data)
            model.optimize_parameters(current_step)
            model.update_learning_rate(current_step, warmup_iter=opt["train"]["warmup_iter"])
            if current_step % 100 == 0:
                print(epoch, current_step, model.get_current_learning_rate(), model.log_dict)
        model.save(current_step)


if __name__ == "__main__":
    main()
