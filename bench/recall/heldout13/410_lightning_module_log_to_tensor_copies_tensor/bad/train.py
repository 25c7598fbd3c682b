import torch
from torch import nn
from torch.nn import functional as F

from logging_module import LoggingModule


class LitClassifier(LoggingModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.log("train_loss", loss)
        self.log("train_acc", (logits.argmax(-1) == y).float().mean())
        return loss


def main():
    model = LitClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [(torch.randn(32, 20), torch.randint(0, 5, (32,))) for _ in range(100)]
    for epoch in range(5):
        for batch in batches:
            loss = model.training_step(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, model.epoch_means())


if __name__ == "__main__":
    main()
