import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=6400, hidden_size=512, num_layers=8, num_heads=8, max_len=1024):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden_size)
        self.pos = nn.Embedding(max_len, hidden_size)
        layer = nn.TransformerEncoderLayer(hidden_size, num_heads, 4 * hidden_size, batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, num_layers)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf"), device=input_ids.device), 1)
        h = self.embed(input_ids) + self.pos(torch.arange(t, device=input_ids.device))
        return self.lm_head(self.layers(h, mask=mask))


def sequence_logprobs(logits, labels, mask):
    logp = torch.gather(F.log_softmax(logits, dim=-1), 2, labels.unsqueeze(-1)).squeeze(-1)
    return (logp * mask).sum(-1)


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, beta=0.1):
    logits = (policy_chosen - policy_rejected) - (ref_chosen - ref_rejected)
    return -F.logsigmoid(beta * logits).mean()
