import torch
from accelerate import Accelerator
from torch.optim import Adam
from torch.utils.data import DataLoader

from byol_pytorch.byol_pytorch import BYOL


class BYOLTrainer:
    def __init__(self, net, image_size, hidden_layer, dataset, num_train_steps, batch_size=16, learning_rate=3e-4):
        self.accelerator = Accelerator()
        self.byol = BYOL(net, image_size=image_size, hidden_layer=hidden_layer)
        self.optimizer = Adam(self.byol.parameters(), lr=learning_rate)
        self.dataloader = DataLoader(dataset, shuffle=True, batch_size=batch_size)
        self.num_train_steps = num_train_steps
        self.byol, self.optimizer, self.dataloader = self.accelerator.prepare(self.byol, self.optimizer, self.dataloader)

    def forward(self):
        step = 0
        while step < self.num_train_steps:
            for images in self.dataloader:
                loss = self.byol(images)
                self.accelerator.backward(loss)
                self.accelerator.print(f"loss {loss.item():.3f}")
                self.optimizer.zero_grad()  # expect: TCK103
                self.optimizer.step()
                self.byol.update_moving_average()
                step += 1
                if step >= self.num_train_steps:
                    break
