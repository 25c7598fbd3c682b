import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrize

from so import SO, uniform_init_


class OrthogonalRNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.hidden_size = hidden_size
        self.input_layer = nn.Linear(input_size, hidden_size)
        self.recurrent = nn.Linear(hidden_size, hidden_size, bias=False)
        parametrize.register_parametrization(self.recurrent, "weight", SO((hidden_size, hidden_size)))
        self.classifier = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        h = x.new_zeros(x.shape[0], self.hidden_size)
        for t in range(x.shape[1]):
            h = torch.tanh(self.input_layer(x[:, t]) + self.recurrent(h))
        return self.classifier(h)


def main(steps=1000):
    model = OrthogonalRNN(1, 128, 10)
    with torch.no_grad():
        uniform_init_(model.recurrent.parametrizations.weight.original)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for step in range(steps):
        x = torch.randn(32, 784, 1)
        y = torch.randint(0, 10, (32,))
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
