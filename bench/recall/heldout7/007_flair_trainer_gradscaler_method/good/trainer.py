import torch
from torch.utils.data import DataLoader

import flair


class ModelTrainer:
    def __init__(self, model, corpus):
        self.model = model
        self.corpus = corpus

    def train_custom(self, base_path, learning_rate=0.1, mini_batch_size=32, max_epochs=100, use_amp=False, optimizer=torch.optim.SGD):
        self.optimizer = optimizer(params=self.model.parameters(), lr=learning_rate)
        scaler = torch.amp.GradScaler("cuda", enabled=use_amp and flair.device.type != "cpu")
        loader = DataLoader(self.corpus.train, batch_size=mini_batch_size, shuffle=True)
        for epoch in range(max_epochs):
            self.model.train()
            for batch in loader:
                self.model.zero_grad()
                self.optimizer.zero_grad()
                with torch.autocast(device_type=flair.device.type, enabled=use_amp):
                    loss, datapoint_count = self.model.forward_loss(batch)
                scaler.scale(loss).backward()
                scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
                scaler.step(self.optimizer)
                scaler.update()
