import torch
from torch import nn
import torch.nn.functional as F


class InferenceBatchLogSoftmax(nn.Module):
    def forward(self, input_):
        if not self.training:
            batch_size = input_.size()[0]
            return torch.stack([F.log_softmax(input_[i]) for i in range(batch_size)], 0)  # expect: TCK608
        return input_


class DeepSpeech(nn.Module):
    def __init__(self, hidden_size, num_classes):
        super().__init__()
        self.rnn = nn.GRU(161, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)
        self.inference_log_softmax = InferenceBatchLogSoftmax()

    def forward(self, x):
        x, _ = self.rnn(x)
        return self.inference_log_softmax(self.fc(x))
