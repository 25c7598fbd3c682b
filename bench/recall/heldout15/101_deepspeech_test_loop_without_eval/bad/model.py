import torch.nn as nn


class SpeechNet(nn.Module):
    def __init__(self, n_mels=80, hidden=256, num_classes=29):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, kernel_size=(11, 11), stride=(2, 2), padding=5),
            nn.BatchNorm2d(32),
            nn.Hardtanh(0, 20, inplace=True),
        )
        self.rnn = nn.GRU(32 * (n_mels // 2), hidden, batch_first=True, bidirectional=True)
        self.head = nn.Sequential(nn.BatchNorm1d(2 * hidden), nn.Linear(2 * hidden, num_classes))

    def forward(self, spect):
        x = self.conv(spect.unsqueeze(1))
        b, c, f, t = x.shape
        x = x.permute(0, 3, 1, 2).reshape(b, t, c * f)
        x, _ = self.rnn(x)
        x = self.head[0](x.transpose(1, 2)).transpose(1, 2)
        return self.head[1](x)
