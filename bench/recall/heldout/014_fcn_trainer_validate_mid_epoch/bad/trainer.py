import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader, device, interval_validate):
        self.model = model
        self.optim = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.device = device
        self.interval_validate = interval_validate
        self.iteration = 0

    def validate(self):
        self.model.eval()
        total = 0.0
        with torch.no_grad():
            for data, target in self.val_loader:
                data, target = data.to(self.device), target.to(self.device)
                total += F.cross_entropy(self.model(data), target).item()
        return total / len(self.val_loader)

    def train_epoch(self):
        self.model.train()
        for data, target in self.train_loader:
            if self.iteration % self.interval_validate == 0:
                self.validate()  # expect: TCK106
            data, target = data.to(self.device), target.to(self.device)
            self.optim.zero_grad()
            loss = F.cross_entropy(self.model(data), target)
            loss.backward()
            self.optim.step()
            self.iteration += 1
