import torch
from torch import nn
from torch.nn import functional as F


class MLPClassifier(nn.Module):
    def __init__(self, input_size=784, hidden_size=128, num_classes=10):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        x = x.view(x.size(0), -1)
        hidden = F.relu(self.fc1(x))
        logits = self.fc2(hidden)
        return hidden, logits, F.log_softmax(logits, dim=1)
