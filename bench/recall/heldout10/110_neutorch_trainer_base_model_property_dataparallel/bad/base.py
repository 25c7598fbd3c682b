from functools import cached_property
from time import time

import torch
from torch.utils.data import DataLoader, TensorDataset

from model import Model


class TrainerBase:
    def __init__(self, cfg):
        self.cfg = cfg

    @cached_property
    def device(self):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")

    @cached_property
    def model(self):
        model = Model(self.cfg["in_channels"], self.cfg["out_channels"])
        if torch.cuda.is_available():
            print("Let's use ", torch.cuda.device_count(), " GPUs!")
            model = torch.nn.DataParallel(model, dim=0)  # expect: TCK204
        return model.to(self.device)

    @cached_property
    def optimizer(self):
        return torch.optim.Adam(self.model.parameters(), lr=self.cfg["learning_rate"])

    @cached_property
    def loss_module(self):
        return torch.nn.BCEWithLogitsLoss()

    @cached_property
    def training_data_loader(self):
        images = torch.randn(64, 1, 16, 32, 32)
        labels = (torch.rand(64, 3, 16, 32, 32) > 0.5).float()
        return DataLoader(TensorDataset(images, labels), batch_size=self.cfg["batch_size"], num_workers=2)

    def __call__(self):
        accumulated_loss = 0.0
        for iter_idx, (image, label) in enumerate(self.training_data_loader, 1):
            ping = time()
            image, label = image.to(self.device), label.to(self.device)
            predict = self.model(image)
            loss = self.loss_module(predict, label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            accumulated_loss += loss.detach()
            if iter_idx % self.cfg["training_interval"] == 0:
                print(f"iter {iter_idx}: loss {accumulated_loss.item() / self.cfg['training_interval']:.4f}, "
                      f"{time() - ping:.3f}s")
                accumulated_loss = 0.0


if __name__ == "__main__":
    TrainerBase({"in_channels": 1, "out_channels": 3, "learning_rate": 1e-3, "batch_size": 4,
                 "training_interval": 4})()
