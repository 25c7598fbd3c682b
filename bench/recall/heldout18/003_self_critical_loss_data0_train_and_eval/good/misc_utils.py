import torch
import torch.nn as nn


class LanguageModelCriterion(nn.Module):
    """Masked negative log-likelihood over the caption tokens."""

    def forward(self, logprobs, target, mask):
        target = target[:, : logprobs.size(1)]
        mask = mask[:, : logprobs.size(1)]
        output = -logprobs.gather(2, target.unsqueeze(2)).squeeze(2) * mask
        return torch.sum(output) / torch.sum(mask)


class CaptionModel(nn.Module):
    def __init__(self, feat_dim=128, vocab=500, hidden=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.feat_proj = nn.Linear(feat_dim, hidden)
        self.rnn = nn.LSTM(hidden, hidden, batch_first=True)
        self.logit = nn.Linear(hidden, vocab)

    def forward(self, fc_feats, labels):
        h0 = self.feat_proj(fc_feats).unsqueeze(0)
        out, _ = self.rnn(self.embed(labels[:, :-1]), (h0, torch.zeros_like(h0)))
        return torch.log_softmax(self.logit(out), dim=-1)


def clip_gradient(optimizer, grad_clip):
    for group in optimizer.param_groups:
        for param in group["params"]:
            if param.grad is not None:
                param.grad.clamp_(-grad_clip, grad_clip)
