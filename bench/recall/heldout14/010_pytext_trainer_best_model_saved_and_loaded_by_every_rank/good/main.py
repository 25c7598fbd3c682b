import argparse
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from trainer import Trainer


class DocNN(nn.Module):
    def __init__(self, vocab_size, embed_dim=128, num_classes=10, kernel_sizes=(3, 4), num_kernels=100):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.convs = nn.ModuleList(nn.Conv1d(embed_dim, num_kernels, k, padding=k) for k in kernel_sizes)
        self.dropout = nn.Dropout(0.4)
        self.fc = nn.Linear(num_kernels * len(kernel_sizes), num_classes)

    def forward(self, tokens):
        x = self.embedding(tokens).transpose(1, 2)
        pooled = [torch.relu(conv(x)).max(dim=2).values for conv in self.convs]
        return self.fc(self.dropout(torch.cat(pooled, dim=1)))


def run_single(rank, world_size, dist_init_method, args):
    dist.init_process_group("nccl", init_method=dist_init_method, rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    train_set, eval_set = torch.load(args.train_data), torch.load(args.eval_data)
    train_iter = DataLoader(train_set, batch_size=64, sampler=DistributedSampler(train_set, shuffle=False))
    eval_iter = DataLoader(eval_set, batch_size=256)
    model = DocNN(vocab_size=args.vocab_size)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    Trainer(epochs=args.epochs).train(train_iter, eval_iter, model, nn.CrossEntropyLoss(), optimizer,
                                      args.save_dir, rank=rank)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_data", required=True)
    parser.add_argument("--eval_data", required=True)
    parser.add_argument("--vocab_size", type=int, default=30000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--save_dir", default="/tmp")
    parser.add_argument("--world_size", type=int, default=torch.cuda.device_count())
    args = parser.parse_args()
    with tempfile.NamedTemporaryFile(delete=False, suffix=".dist_sync") as sync_file:
        mp.spawn(run_single, args=(args.world_size, "file://" + sync_file.name, args), nprocs=args.world_size)
