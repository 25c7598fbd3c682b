import argparse

import torch
from torch import nn
from torch.utils.data import Dataset

from trainer import Trainer
from training_args import TrainingArguments


class LineByLineTextDataset(Dataset):
    def __init__(self, n=2048, block_size=128, vocab=5000):
        self.examples = torch.randint(0, vocab, (n, block_size))

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return {"input_ids": self.examples[i], "labels": self.examples[i]}


class TinyLM(nn.Module):
    def __init__(self, vocab=5000, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels=None):
        hidden, _ = self.rnn(self.embed(input_ids))
        logits = self.lm_head(hidden)
        loss = nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), labels[:, 1:].flatten())
        return loss, logits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--model_name_or_path", default=None)
    parser.add_argument("--local_rank", type=int, default=-1)
    cli = parser.parse_args()
    args = TrainingArguments(output_dir=cli.output_dir, local_rank=cli.local_rank)
    model = TinyLM()
    if cli.model_name_or_path:
        model.load_state_dict(torch.load(f"{cli.model_name_or_path}/pytorch_model.bin", map_location="cpu"))
    trainer = Trainer(model=model, args=args, train_dataset=LineByLineTextDataset())
    trainer.train(model_path=cli.model_name_or_path)


if __name__ == "__main__":
    main()
