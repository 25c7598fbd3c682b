import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ConvBackbone(nn.Module):
    def __init__(self, in_channels, num_classes, width=64):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, width, 3, padding=1),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(width, width, 3, padding=1),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


class FewShotClassifier(nn.Module):
    """Meta-learner that owns its backbone, its outer-loop optimizer and its scheduler."""

    def __init__(self, in_channels, num_classes, meta_lr, total_epochs, device):
        super().__init__()
        self.device = device
        self.current_epoch = 0
        self.classifier = ConvBackbone(in_channels, num_classes)
        self.to(device)
        self.optimizer = optim.Adam(self.parameters(), lr=meta_lr)
        self.scheduler = optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=total_epochs)

    def forward(self, x):
        return self.classifier(x)

    def meta_update(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def run_train_iter(self, batch, epoch):
        self.current_epoch = epoch
        self.train()
        x, y = batch
        x = x.to(self.device)
        y = y.to(self.device)
        loss = F.cross_entropy(self(x), y)
        self.meta_update(loss)
        return loss.item()

    def end_epoch(self):
        self.scheduler.step()

    def save_model(self, model_save_dir, state):
        """Store the network next to the experiment state handed in by the builder."""
        state["network"] = self.state_dict()
        state["optimizer"] = self.optimizer.state_dict()
        state["scheduler"] = self.scheduler.state_dict()
        torch.save(state, f=model_save_dir)

    def load_model(self, model_save_dir, model_name, model_idx):
        filepath = os.path.join(model_save_dir, "{}_{}".format(model_name, model_idx))
        state = torch.load(filepath, map_location=self.device, weights_only=True)
        self.load_state_dict(state["network"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        return state
