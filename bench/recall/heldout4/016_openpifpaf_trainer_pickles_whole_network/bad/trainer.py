import torch


class Trainer:
    def __init__(self, model, loss, optimizer, out):
        self.model = model
        self.loss = loss
        self.optimizer = optimizer
        self.out = out

    def train(self, loader, epochs):
        for epoch in range(epochs):
            self.model.train()
            for data, targets in loader:
                self.optimizer.zero_grad()
                loss = self.loss(self.model(data), targets)
                loss.backward()
                self.optimizer.step()
            self.write_model(epoch)

    def write_model(self, epoch):
        filename = "{}.epoch{:03d}".format(self.out, epoch)
        torch.save(self.model, filename)  # expect: TCK402
