import os

import torch

from .unet import Unet


class Framework:
    def __init__(self, loss_fn=None, model_opts=None, optimizer_opts=None, device=None):
        self.device = device or torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = Unet(**model_opts).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), **optimizer_opts)
        self.loss_fn = loss_fn

    def optimize(self, x, y):
        self.optimizer.zero_grad()
        y_hat = self.model(x.to(self.device))
        loss = self.loss_fn(y_hat, y.to(self.device))
        loss.backward()
        self.optimizer.step()
        return y_hat, loss.item()

    def save(self, out_dir, epoch):
        if not os.path.exists(out_dir):
            os.makedirs(out_dir)
        model_path = os.path.join(out_dir, f"model_{epoch}.pt")
        torch.save(self.model.state_dict(), model_path)
        optim_path = os.path.join(out_dir, f"optim_{epoch}.pt")
        torch.save(self.optimizer.state_dict(), optim_path)
