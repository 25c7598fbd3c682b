import torch
from torch import nn

model = nn.Linear(32, 4)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loader = [(torch.randn(16, 32), torch.randint(0, 4, (16,))) for _ in range(100)]

loss_sum = 0.0
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    loss_sum += loss  # expect: TCK101
print(loss_sum / len(loader))
