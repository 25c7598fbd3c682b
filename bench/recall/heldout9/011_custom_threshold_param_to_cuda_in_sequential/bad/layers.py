import torch
import torch.nn as nn


class CustomLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.threshold = nn.Parameter(torch.randn(1)).to("cuda")  # expect: TCK108

    def forward(self, input):
        return torch.relu(input - self.threshold)


model = nn.Sequential(nn.Linear(16, 16), CustomLayer()).to("cuda")
print(list(model[1].parameters()))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 16, device="cuda")
loss = model(x).sum()
loss.backward()
optimizer.step()
