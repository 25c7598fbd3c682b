import torch
from torch import nn

model = nn.Linear(8, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
inputs = torch.randn(64, 8)
targets = torch.randn(64, 1)

total_loss = 0
for i in range(10000):
    output = model(inputs)
    loss = criterion(output, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total_loss += loss.item()
