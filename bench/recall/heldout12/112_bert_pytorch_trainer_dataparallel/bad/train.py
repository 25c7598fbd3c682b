import os

import torch
from torch.utils.data import DataLoader, Dataset

from model import BERT
from trainer.pretrain import BERTTrainer


class RandomPretrainData(Dataset):
    def __init__(self, n=1024, seq_len=64, vocab_size=1000):
        self.n, self.seq_len, self.vocab_size = n, seq_len, vocab_size

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        tokens = torch.randint(5, self.vocab_size, (self.seq_len,))
        labels = torch.where(torch.rand(self.seq_len) < 0.15, tokens, torch.zeros_like(tokens))
        return {
            "bert_input": tokens,
            "bert_label": labels,
            "segment_label": torch.ones(self.seq_len, dtype=torch.long),
            "is_next": torch.randint(0, 2, ()),
        }


if __name__ == "__main__":
    os.makedirs("output", exist_ok=True)
    loader = DataLoader(RandomPretrainData(), batch_size=64, shuffle=True, num_workers=2)
    bert = BERT(vocab_size=1000)
    trainer = BERTTrainer(bert, 1000, train_dataloader=loader)
    for epoch in range(3):
        trainer.train(epoch)
        trainer.save(epoch)
