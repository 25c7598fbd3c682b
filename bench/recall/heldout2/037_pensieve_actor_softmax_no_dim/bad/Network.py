import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorNetwork(nn.Module):
    def __init__(self, state_dim, action_dim, n_conv=128, n_fc=128):
        super(ActorNetwork, self).__init__()
        self.s_dim = state_dim
        self.a_dim = action_dim
        self.bufferSizeFc = nn.Linear(1, n_fc)
        self.tConv1d = nn.Conv1d(1, n_conv, 4)
        self.fullyConnected = nn.Linear(n_fc + n_conv * (self.s_dim[1] - 3), n_fc)
        self.outputLayer = nn.Linear(n_fc, self.a_dim)

    def forward(self, inputs):
        bufferSizeOut = F.relu(self.bufferSizeFc(inputs[:, 1:2, -1]), inplace=True)
        tConv1dOut = F.relu(self.tConv1d(inputs[:, 2:3, :]), inplace=True).view(inputs.shape[0], -1)
        fcOutput = F.relu(self.fullyConnected(torch.cat([bufferSizeOut, tConv1dOut], 1)), inplace=True)
        out = F.softmax(self.outputLayer(fcOutput))  # expect: TCK608
        return out
