import torch as th

import config


class Net(th.nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1d = th.nn.ModuleList([
            th.nn.Conv1d(config.WORD_VEC_SIZE, 1, 3),
            th.nn.Conv1d(config.WORD_VEC_SIZE, 1, 4),
            th.nn.Conv1d(config.WORD_VEC_SIZE, 1, 5),
        ])
        self.fc = th.nn.Linear(3, 2)

    def forward(self, x):
        feats = [conv(x).max(dim=2)[0] for conv in self.conv1d]
        return self.fc(th.cat(feats, dim=1))
