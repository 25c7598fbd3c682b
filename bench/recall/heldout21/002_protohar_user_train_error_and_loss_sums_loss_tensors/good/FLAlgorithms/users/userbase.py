import copy

import torch
import torch.nn as nn
from torch.optim import SGD
from torch.utils.data import DataLoader


class User:
    """A federated client: holds its own data split, a copy of the model and an optimizer."""

    def __init__(self, args, user_id, model, train_data, test_data):
        self.device = args.device
        self.id = user_id
        self.model = copy.deepcopy(model)
        self.persionalized_model = copy.deepcopy(model)
        self.train_samples = len(train_data)
        self.test_samples = len(test_data)
        self.batch_size = args.batch_size
        self.local_epochs = args.local_epochs
        self.trainloader = DataLoader(train_data, self.batch_size, shuffle=True)
        self.trainloaderfull = DataLoader(train_data, self.train_samples)
        self.testloaderfull = DataLoader(test_data, self.test_samples)
        self.init_loss_fn()
        self.optimizer = SGD(self.model.parameters(), lr=args.learning_rate, momentum=args.momentum)

    def init_loss_fn(self):
        self.loss = nn.CrossEntropyLoss()
        self.dist_loss = nn.MSELoss()

    def set_parameters(self, model):
        for old, new in zip(self.model.parameters(), model.parameters()):
            old.data = new.data.clone()

    def test(self):
        self.model.eval()
        correct = 0
        seen = 0
        with torch.no_grad():
            for x, y in self.testloaderfull:
                x, y = x.to(self.device), y.to(self.device)
                logits = self.model(x)["output"]
                correct += (logits.argmax(dim=1) == y).sum().item()
                seen += y.shape[0]
        return correct, seen

    def train_error_and_loss(self):
        self.model.eval()
        train_acc = 0
        loss = 0
        with torch.no_grad():
            for x, y in self.trainloader:
                x, y = x.to(self.device), y.to(self.device)
                logits = self.model(x)["output"]
                train_acc += (logits.argmax(dim=1) == y).sum().item()
                loss += self.loss(logits, y)
        return train_acc, loss, self.train_samples

    def train_error_and_loss_persionalized_model(self):
        self.persionalized_model.eval()
        train_acc = 0
        loss = 0
        with torch.no_grad():
            for x, y in self.trainloaderfull:
                x, y = x.to(self.device), y.to(self.device)
                logits = self.persionalized_model(x)["output"]
                train_acc += (logits.argmax(dim=1) == y).sum().item()
                loss += self.loss(logits, y)
        return train_acc, loss, self.train_samples
