import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

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
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    os.makedirs("output", exist_ok=True)
    dataset = RandomPretrainData()
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, num_workers=2)
    bert = BERT(vocab_size=1000)
    trainer = BERTTrainer(bert, 1000, train_dataloader=loader, local_rank=local_rank)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        trainer.train(epoch)
        trainer.save(epoch)
    dist.destroy_process_group()
