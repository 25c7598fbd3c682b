import torch
import torch.nn.functional as F
from torch import nn


class TabularNet(nn.Module):
    def __init__(self, n_in=8, hidden=20, n_out=2):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, n_out)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.out(x)


features = torch.randn(500, 8)
labels = torch.randint(0, 2, (500,))
model = TabularNet()
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
history = []
for epoch in range(500):
    predictions = model.forward(features)  # expect: TCK105
    loss = loss_fn(predictions, labels)
    history.append(loss)  # expect: TCK101
    if epoch % 10 == 1:
        print(epoch, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
