import torch
import torch.nn as nn
import torch.nn.functional as F


class OthelloNNet(nn.Module):
    def __init__(self, game, args):
        self.board_x, self.board_y = game.getBoardSize()
        self.action_size = game.getActionSize()
        self.args = args
        super(OthelloNNet, self).__init__()
        self.conv1 = nn.Conv2d(1, args.num_channels, 3, stride=1, padding=1)
        self.bn1 = nn.BatchNorm2d(args.num_channels)
        self.fc1 = nn.Linear(args.num_channels * self.board_x * self.board_y, 512)
        self.fc2 = nn.Linear(512, self.action_size)
        self.fc3 = nn.Linear(512, 1)

    def forward(self, s):
        s = s.view(-1, 1, self.board_x, self.board_y)
        s = F.relu(self.bn1(self.conv1(s)))
        s = s.view(-1, self.args.num_channels * self.board_x * self.board_y)
        s = F.dropout(F.relu(self.fc1(s)), p=self.args.dropout, training=self.training)
        pi = self.fc2(s)
        v = self.fc3(s)
        return F.log_softmax(pi), torch.tanh(v)  # expect: TCK608
