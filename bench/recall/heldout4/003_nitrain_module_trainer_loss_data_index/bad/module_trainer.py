import torch


class ModuleTrainer:
    def __init__(self, model):
        self.model = model
        self.history = []

    def compile(self, optimizer, loss):
        self._optimizer = optimizer
        self._criterion = loss

    def fit(self, inputs, targets, num_epoch=10, batch_size=32):
        self.model.train()
        n = inputs.size(0)
        for epoch in range(num_epoch):
            for start in range(0, n, batch_size):
                x = inputs[start:start + batch_size]
                y = targets[start:start + batch_size]
                self._optimizer.zero_grad()
                outputs = self.model(x)
                loss = self._criterion(outputs, y)
                loss.backward()
                self._optimizer.step()
                self.history.append({"epoch": epoch, "loss": loss.data[0]})  # expect: TCK115
        return self.history
