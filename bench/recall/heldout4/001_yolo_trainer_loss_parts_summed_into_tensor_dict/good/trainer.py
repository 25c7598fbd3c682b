from collections import defaultdict

import torch


class YoloTrainer:
    def __init__(self, model, criterion, optimizer, device):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.device = device

    def train_one_batch(self, images, targets):
        images = images.to(self.device)
        predictions = self.model(images)
        loss_parts = self.criterion(predictions, targets)
        loss = loss_parts["box"] + loss_parts["dfl"] + loss_parts["cls"]
        loss_parts["total"] = loss
        self.optimizer.zero_grad()
        loss_parts["total"].backward()
        self.optimizer.step()
        return loss_parts

    def train_one_epoch(self, dataloader):
        self.model.train()
        total_loss = defaultdict(float)
        for images, targets in dataloader:
            loss_parts = self.train_one_batch(images, targets)
            for loss_name, loss_val in loss_parts.items():
                total_loss[loss_name] += loss_val.item()
        return {name: value / len(dataloader) for name, value in total_loss.items()}
