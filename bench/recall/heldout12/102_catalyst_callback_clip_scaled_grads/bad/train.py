import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from engine import AMPEngine, OptimizerCallback


class Runner:
    def __init__(self, model, optimizer, engine, callbacks):
        self.model = model
        self.optimizer = optimizer
        self.engine = engine
        self.callbacks = callbacks
        self.loss = None

    def run(self, loader, epochs):
        criterion = nn.CrossEntropyLoss()
        self.model.train()
        for _ in range(epochs):
            for x, y in loader:
                x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
                with self.engine.autocast():
                    self.loss = criterion(self.model(x), y)
                for cb in self.callbacks:
                    cb.on_batch_end(self)


if __name__ == "__main__":
    data = TensorDataset(torch.randn(512, 32), torch.randint(0, 4, (512,)))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 4)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    runner = Runner(model, optimizer, AMPEngine(), [OptimizerCallback(accumulation_steps=1, max_grad_norm=1.0)])
    runner.run(loader, epochs=2)
