from torch import nn

from explainn import ExplaiNNTrunk


class ExplaiNNModel(nn.Module):
    def __init__(self, n_tasks, in_len, channels=300, kernel_size=19):
        super().__init__()
        self.embedding = ExplaiNNTrunk(in_len=in_len, channels=channels, kernel_size=kernel_size)
        self.head = nn.Linear(channels, n_tasks)

    def forward(self, x):
        return self.head(self.embedding(x))
