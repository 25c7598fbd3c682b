import torch
import torch.nn.functional as F
from torch import nn


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 1)

    def forward(self, x):
        x = F.dropout(x, p=0.5)  # expect: TCK604
        return self.fc(x)


model = SmallNet()
model.eval()
print(model(torch.randn(1, 10)))
