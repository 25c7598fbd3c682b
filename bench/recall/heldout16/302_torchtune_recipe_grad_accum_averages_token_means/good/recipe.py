import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from model import TinyDecoder

IGNORE_INDEX = -100


class InstructDataset(Dataset):
    def __init__(self, n=256, vocab_size=1000, max_len=64):
        g = torch.Generator().manual_seed(0)
        self.samples = []
        for _ in range(n):
            length = int(torch.randint(8, max_len, (1,), generator=g))
            self.samples.append(torch.randint(0, vocab_size, (length,), generator=g))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        return self.samples[idx]


def padded_collate(batch):
    max_len = max(len(x) for x in batch)
    tokens = torch.zeros(len(batch), max_len, dtype=torch.long)
    labels = torch.full((len(batch), max_len), IGNORE_INDEX, dtype=torch.long)
    for i, seq in enumerate(batch):
        tokens[i, : len(seq)] = seq
        labels[i, : len(seq) - 1] = seq[1:]
    return {"tokens": tokens, "labels": labels}


class FullFinetuneRecipe:
    def __init__(self, cfg):
        self._device = torch.device(cfg["device"])
        self._gradient_accumulation_steps = cfg["gradient_accumulation_steps"]
        self._epochs = cfg["epochs"]
        self._model = TinyDecoder().to(self._device)
        self._optimizer = torch.optim.AdamW(self._model.parameters(), lr=cfg["lr"])
        self._loss_fn = nn.CrossEntropyLoss(ignore_index=IGNORE_INDEX)
        self._dataloader = DataLoader(
            InstructDataset(), batch_size=cfg["batch_size"], shuffle=True, collate_fn=padded_collate
        )

    def train(self):
        self._model.train()
        self._optimizer.zero_grad()
        for epoch in range(self._epochs):
            running_loss = 0.0
            num_tokens = 0
            for idx, batch in enumerate(self._dataloader):
                tokens = batch["tokens"].to(self._device)
                labels = batch["labels"].to(self._device)
                current_num_tokens = (labels != IGNORE_INDEX).sum()
                num_tokens += current_num_tokens
                logits = self._model(tokens)
                # mean over this batch's tokens, turned back into a sum of token losses
                batch_loss = self._loss_fn(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
                running_loss = running_loss + batch_loss * current_num_tokens
                if (idx + 1) % self._gradient_accumulation_steps == 0:
                    loss = running_loss / num_tokens
                    loss.backward()
                    self._optimizer.step()
                    self._optimizer.zero_grad(set_to_none=True)
                    print(f"epoch {epoch} step loss {loss.item():.4f}")
                    running_loss = 0.0
                    num_tokens = 0


if __name__ == "__main__":
    recipe = FullFinetuneRecipe(
        {"device": "cpu", "gradient_accumulation_steps": 4, "epochs": 1, "lr": 2e-5, "batch_size": 4}
    )
    recipe.train()
