import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

from unet import UNet, dice_loss


class Model:
    def __init__(self, device="cuda", batch_size=1):
        self.device = device
        self.args = argparse.Namespace(lr=1e-5, amp=False)
        self.example_inputs = torch.rand((batch_size, 3, 160, 240), device=device)
        self.sample_masks = torch.randint(0, 2, (batch_size, 160, 240), device=device)
        self.model = UNet(n_channels=3, n_classes=2).to(device)

    def enable_amp(self):
        self.args.amp = True

    def train(self, niter=1):
        optimizer = optim.RMSprop(self.model.parameters(), lr=self.args.lr, weight_decay=1e-8, momentum=0.9)
        grad_scaler = torch.amp.GradScaler("cuda", enabled=self.args.amp)
        criterion = nn.CrossEntropyLoss()
        self.model.train()

        with torch.autocast("cuda", enabled=self.args.amp):
            for _ in range(niter):
                masks_pred = self.model(self.example_inputs)
                masks_true = self.sample_masks
                loss = criterion(masks_pred, masks_true) + dice_loss(
                    F.softmax(masks_pred, dim=1).float(),
                    F.one_hot(masks_true, self.model.n_classes).permute(0, 3, 1, 2).float(),
                )
                optimizer.zero_grad(set_to_none=True)
                grad_scaler.scale(loss).backward()  # expect: TCK302
                grad_scaler.step(optimizer)
                grad_scaler.update()
        return loss.item()


if __name__ == "__main__":
    m = Model()
    m.enable_amp()
    print(m.train(niter=3))
