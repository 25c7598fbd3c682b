import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR


def train_one_epoch(model, optimizer, loader, criterion):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


model = nn.Linear(10, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
criterion = nn.CrossEntropyLoss()
loader = [(torch.randn(8, 10), torch.randint(0, 2, (8,))) for _ in range(4)]
for epoch in range(100):
    scheduler.step()  # expect: TCK104
    train_one_epoch(model, optimizer, loader, criterion)
