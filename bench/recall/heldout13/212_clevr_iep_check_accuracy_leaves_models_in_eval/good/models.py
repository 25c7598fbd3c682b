import torch
import torch.nn as nn


class ExecutionEngine(nn.Module):
    """Runs a predicted program of neural modules over image features."""

    def __init__(self, num_modules=40, feat_dim=128, num_answers=32):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1024, feat_dim, 3, padding=1), nn.BatchNorm2d(feat_dim), nn.ReLU())
        self.module_blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(feat_dim, feat_dim, 3, padding=1), nn.BatchNorm2d(feat_dim), nn.ReLU())
            for _ in range(num_modules)
        )
        self.classifier = nn.Sequential(nn.AdaptiveMaxPool2d(1), nn.Flatten(), nn.Dropout(0.5),
                                        nn.Linear(feat_dim, num_answers))

    def forward(self, feats, programs):
        h = self.stem(feats)
        for step in range(programs.size(1)):
            out = torch.stack([self.module_blocks[int(programs[i, step])](h[i:i + 1])[0] for i in range(h.size(0))])
            h = h + out
        return self.classifier(h)


class LstmBaseline(nn.Module):
    def __init__(self, vocab_size=100, hidden=256, num_answers=32):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.LSTM(hidden, hidden, batch_first=True)
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Linear(hidden, num_answers))

    def forward(self, questions, feats=None):
        _, (h, _) = self.rnn(self.embed(questions))
        return self.classifier(h[-1])
