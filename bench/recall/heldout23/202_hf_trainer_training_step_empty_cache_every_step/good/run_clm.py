"""Fine-tunes a small causal LM on random token blocks with the Trainer."""
import torch
from torch import nn
from torch.utils.data import Dataset

from trainer import Trainer, TrainingArguments


class TokenBlocks(Dataset):
    def __init__(self, n=4096, block_size=128, vocab=32000):
        self.ids = torch.randint(0, vocab, (n, block_size))

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=32000, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, nhead=4, batch_first=True)
        self.body = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels=None):
        n = input_ids.size(1)
        causal = nn.Transformer.generate_square_subsequent_mask(n, device=input_ids.device)
        logits = self.head(self.body(self.embed(input_ids), mask=causal, is_causal=True))
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = nn.functional.cross_entropy(
                logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return out


if __name__ == "__main__":
    args = TrainingArguments("out", per_device_train_batch_size=1, gradient_accumulation_steps=1, num_train_epochs=2)
    Trainer(TinyCausalLM(), args, TokenBlocks()).train()
