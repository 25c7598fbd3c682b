import inspect

import torch
from torch.utils.data import DataLoader


class ModelTrainer:
    def __init__(self, model, corpus):
        self.model = model
        self.corpus = corpus

    def train(self, learning_rate=0.1, mini_batch_size=32, max_epochs=100, shuffle=True, sampler=None, num_workers=0):
        optimizer = torch.optim.SGD(self.model.parameters(), lr=learning_rate)
        train_data = self.corpus.train
        if sampler is not None:
            if inspect.isclass(sampler):
                sampler = sampler()
            sampler.set_dataset(train_data)

        for epoch in range(1, max_epochs + 1):
            self.model.train()
            batch_loader = DataLoader(train_data, batch_size=mini_batch_size, shuffle=shuffle if epoch > 1 else False,  # expect: TCK801
                                      sampler=sampler, num_workers=num_workers)
            for batch in batch_loader:
                self.model.zero_grad()
                loss = self.model.forward_loss(batch)
                loss.backward()
                optimizer.step()
