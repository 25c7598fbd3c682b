import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from transformers import AutoModel, get_linear_schedule_with_warmup

from trainer import Trainer


class PairDataset(Dataset):
    def __init__(self, n=4096, seq_len=128, vocab=30522):
        self.ids = torch.randint(0, vocab, (n, seq_len))
        self.labels = torch.rand(n)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return {"input_ids": self.ids[idx], "attention_mask": torch.ones_like(self.ids[idx]), "labels": self.labels[idx]}


class Regressor(nn.Module):
    def __init__(self, backbone="microsoft/deberta-v3-base"):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(backbone)
        self.head = nn.Linear(self.encoder.config.hidden_size, 1)

    def forward(self, input_ids, attention_mask, labels=None):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state[:, 0]
        preds = self.head(hidden).squeeze(-1)
        loss = nn.functional.mse_loss(preds, labels) if labels is not None else None
        return preds, loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=4)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--output_dir", default="outputs")
    args = parser.parse_args()

    model = Regressor()
    loader = DataLoader(PairDataset(), batch_size=8, shuffle=True, num_workers=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    total_steps = args.epochs * len(loader) // args.gradient_accumulation_steps
    scheduler = get_linear_schedule_with_warmup(optimizer, int(0.1 * total_steps), total_steps)
    Trainer(model, optimizer, scheduler, loader, args).fit()


if __name__ == "__main__":
    main()
