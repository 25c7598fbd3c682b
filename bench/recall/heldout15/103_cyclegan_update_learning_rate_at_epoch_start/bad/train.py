import argparse
import time

import torch
from torch.utils.data import DataLoader, Dataset

from cycle_gan_model import CycleGANModel


class UnalignedDataset(Dataset):
    def __init__(self, n=64, size=64):
        self.a = torch.rand(n, 3, size, size) * 2 - 1
        self.b = torch.rand(n, 3, size, size) * 2 - 1

    def __len__(self):
        return len(self.a)

    def __getitem__(self, i):
        return {"A": self.a[i], "B": self.b[torch.randint(len(self.b), ()).item()]}


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--name", default="horse2zebra")
    p.add_argument("--checkpoints_dir", default="./checkpoints")
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--epoch_count", type=int, default=1)
    p.add_argument("--n_epochs", type=int, default=100)
    p.add_argument("--n_epochs_decay", type=int, default=100)
    p.add_argument("--save_epoch_freq", type=int, default=5)
    return p.parse_args()


if __name__ == "__main__":
    opt = parse()
    dataset = DataLoader(UnalignedDataset(), batch_size=1, shuffle=True)
    model = CycleGANModel(opt)
    model.setup()

    for epoch in range(opt.epoch_count, opt.n_epochs + opt.n_epochs_decay + 1):
        epoch_start_time = time.time()
        model.update_learning_rate()  # expect: TCK104
        for batch in dataset:
            model.set_input(batch)
            loss_G, loss_D = model.optimize_parameters()
        if epoch % opt.save_epoch_freq == 0:
            model.save_networks(epoch)
        print(f"End of epoch {epoch} \t G {loss_G:.3f} D {loss_D:.3f} \t {time.time() - epoch_start_time:.0f} sec")
