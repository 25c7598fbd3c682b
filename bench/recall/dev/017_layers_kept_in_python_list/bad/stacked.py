from torch import nn


class StackedLinear(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.layers = [nn.Linear(input_size, hidden_size)]  # expect: TCK601
        for _ in range(num_layers - 1):
            self.layers.append(nn.Linear(hidden_size, hidden_size))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


model = StackedLinear(10, 20, 3)
print(sum(p.numel() for p in model.parameters()))
