import torch
from torch.utils.data import DataLoader, Subset


class UserTrainingHandler:
    """User-supplied glue: builds loaders and trains a model for the attack framework."""

    def __init__(self, population, device):
        self.population = population
        self.device = device

    def get_dataloader(self, indices, batch_size):
        return DataLoader(Subset(self.population, list(indices)), batch_size=batch_size, shuffle=False)

    def train(self, loader, model, criterion, optimizer, epochs):
        model.to(self.device)
        model.train()
        for _ in range(epochs):
            for data, target in loader:
                data, target = data.to(self.device), target.to(self.device)
                optimizer.zero_grad()
                loss = criterion(model(data), target)
                loss.backward()
                optimizer.step()
        return model
