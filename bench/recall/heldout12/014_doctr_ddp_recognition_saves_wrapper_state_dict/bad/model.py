import torch
import torch.nn as nn
import torch.nn.functional as F


class CRNN(nn.Module):
    def __init__(self, vocab, hidden=128):
        super().__init__()
        self.vocab = vocab
        self.cnn = nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.AdaptiveAvgPool2d((1, 32)),
        )
        self.rnn = nn.LSTM(128, hidden, bidirectional=True, batch_first=True)
        self.head = nn.Linear(2 * hidden, len(vocab) + 1)

    def forward(self, images, targets, return_preds=False):
        feats = self.cnn(images).squeeze(2).transpose(1, 2)
        logits = self.head(self.rnn(feats)[0])
        log_probs = logits.log_softmax(-1).transpose(0, 1)
        input_lengths = torch.full((images.size(0),), log_probs.size(0), dtype=torch.long)
        target_lengths = torch.tensor([len(t) for t in targets], dtype=torch.long)
        flat = torch.tensor([self.vocab.index(c) + 1 for t in targets for c in t], dtype=torch.long)
        out = {"loss": F.ctc_loss(log_probs, flat, input_lengths, target_lengths, zero_infinity=True)}
        if return_preds:
            out["preds"] = [("".join(self.vocab[i - 1] for i in seq if i > 0), 1.0) for seq in logits.argmax(-1).tolist()]
        return out
