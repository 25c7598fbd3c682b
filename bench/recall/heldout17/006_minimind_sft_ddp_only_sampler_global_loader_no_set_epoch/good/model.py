import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=6400, hidden_size=512, num_layers=8, num_heads=8, max_len=512):
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


class SFTDataset(torch.utils.data.Dataset):
    def __init__(self, num_samples=10000, max_length=512, vocab_size=6400):
        self.ids = torch.randint(0, vocab_size, (num_samples, max_length + 1))
        self.loss_mask = (torch.rand(num_samples, max_length) > 0.3).float()

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return self.ids[i, :-1], self.ids[i, 1:], self.loss_mask[i]


def token_loss(logits, labels, loss_mask):
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1), reduction="none")
    return (loss.view(labels.shape) * loss_mask).sum() / loss_mask.sum()
