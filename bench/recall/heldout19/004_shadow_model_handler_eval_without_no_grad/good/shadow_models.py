import os
import pickle

import numpy as np
import torch
import torch.nn as nn


class TabularNet(nn.Module):
    def __init__(self, n_features, n_classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_features, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, n_classes)
        )

    def forward(self, x):
        return self.body(x)


class ShadowModelHandler:
    """Trains shadow copies of the target model and records their train/test metrics."""

    def __init__(self, handler, n_features, n_classes, storage_path, batch_size=64, epochs=5, device="cuda"):
        self.handler = handler
        self.n_features = n_features
        self.n_classes = n_classes
        self.storage_path = storage_path
        self.batch_size = batch_size
        self.epochs = epochs
        self.device = device

    def _blueprint(self):
        model = TabularNet(self.n_features, self.n_classes)
        criterion = nn.CrossEntropyLoss()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        return model, criterion, optimizer

    def create_shadow_models(self, num_models, shadow_population, training_fraction=0.5):
        data_size = int(len(shadow_population) * training_fraction)
        os.makedirs(self.storage_path, exist_ok=True)
        for i in range(num_models):
            train_idx = np.random.choice(shadow_population, data_size, replace=False)
            loader = self.handler.get_dataloader(train_idx, self.batch_size)
            model, criterion, optimizer = self._blueprint()
            shadow = self.handler.train(loader, model, criterion, optimizer, self.epochs)

            remaining = list(set(shadow_population) - set(train_idx))
            test_acc, test_loss = self._eval_shadow_model(shadow, criterion, remaining)

            torch.save(shadow.state_dict(), f"{self.storage_path}/shadow_{i}.pt")
            with open(f"{self.storage_path}/shadow_{i}_meta.pkl", "wb") as f:
                pickle.dump({"train_indices": train_idx, "test_acc": test_acc, "test_loss": test_loss}, f)

    def _eval_shadow_model(self, model, criterion, indices):
        accuracy, loss = 0.0, 0.0
        model.eval()
        model.to(self.device)
        loader = self.handler.get_dataloader(indices, self.batch_size)
        with torch.no_grad():
            for data, target in loader:
                data, target = data.to(self.device), target.to(self.device)
                output = model(data)
                loss += criterion(output, target).item()
                accuracy += (output.argmax(1) == target).sum().item()
        return accuracy / len(indices), loss / len(loader)
