import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """The small MNIST learner whose updates the meta optimizer proposes."""

    def __init__(self):
        super(Model, self).__init__()
        self.linear1 = nn.Linear(28 * 28, 32)
        self.linear2 = nn.Linear(32, 10)

    def forward(self, inputs):
        x = inputs.view(-1, 28 * 28)
        x = F.relu(self.linear1(x))
        return F.log_softmax(self.linear2(x), dim=1)
