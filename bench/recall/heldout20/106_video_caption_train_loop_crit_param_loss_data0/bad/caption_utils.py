import torch
import torch.nn as nn


class RewardCriterion(nn.Module):
    """Self-critical policy-gradient loss: -log p(sampled word) * reward, averaged over unmasked words."""

    def forward(self, logprobs, seq, reward):
        logprobs = logprobs.reshape(-1)
        reward = reward.reshape(-1)
        mask = (seq > 0).float()
        mask = torch.cat([torch.ones_like(mask[:, :1]), mask[:, :-1]], 1).reshape(-1)
        return torch.sum(-logprobs * reward * mask) / torch.sum(mask)


class LanguageModelCriterion(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss_fn = nn.NLLLoss(reduction="none")

    def forward(self, logits, target, mask):
        batch_size = logits.shape[0]
        target = target[:, : logits.shape[1]].reshape(-1)
        mask = mask[:, : logits.shape[1]].reshape(-1)
        loss = self.loss_fn(logits.reshape(-1, logits.shape[2]), target)
        return torch.sum(loss * mask) / batch_size


def clip_gradient(optimizer, grad_clip):
    for group in optimizer.param_groups:
        for param in group["params"]:
            if param.grad is not None:
                param.grad.clamp_(-grad_clip, grad_clip)
