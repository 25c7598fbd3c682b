import argparse
import time

import torch
from torch.utils.data import DataLoader, Dataset

from models.conditional_gan_model import ConditionalGAN


class BlurSharpPairs(Dataset):
    def __init__(self, n=64, size=128):
        self.sharp = torch.rand(n, 3, size, size) * 2 - 1
        self.blurred = torch.nn.functional.avg_pool2d(self.sharp, 5, stride=1, padding=2)

    def __len__(self):
        return len(self.sharp)

    def __getitem__(self, i):
        return {"A": self.blurred[i], "B": self.sharp[i]}


def train(opt):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(BlurSharpPairs(), batch_size=opt.batch_size, shuffle=True, num_workers=2)
    model = ConditionalGAN(opt, device)
    total_steps = 0
    for epoch in range(1, opt.epochs + 1):
        start = time.time()
        for batch in loader:
            total_steps += opt.batch_size
            model.set_input(batch)
            model.optimize_parameters()
            if total_steps % opt.print_freq == 0:
                errors = model.get_current_errors()
                print(epoch, total_steps, ", ".join(f"{k}: {v:.3f}" for k, v in errors.items()))
        print(f"epoch {epoch} took {time.time() - start:.1f}s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--lambda_A", type=float, default=100.0)
    parser.add_argument("--print_freq", type=int, default=16)
    train(parser.parse_args())
