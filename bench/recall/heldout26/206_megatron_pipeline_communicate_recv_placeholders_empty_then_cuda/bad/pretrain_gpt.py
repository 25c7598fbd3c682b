"""Pipeline-parallel GPT pretraining sketch: torchrun --nproc_per_node=4 pretrain_gpt.py"""
import os

import torch
import torch.distributed as dist
from torch import nn

from megatron import mpu
from megatron.global_vars import get_args, set_args
from megatron.training import train_step


class Stage(nn.Module):
    """One pipeline stage: a slice of the transformer layers (embedding on the first, head on the last)."""

    def __init__(self, args, vocab_size=50304, layers_per_stage=6):
        super().__init__()
        self.first, self.last = mpu.is_pipeline_first_stage(), mpu.is_pipeline_last_stage()
        self.embed = nn.Embedding(vocab_size, args.hidden_size) if self.first else None
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(args.hidden_size, 16) for _ in range(layers_per_stage))
        self.head = nn.Linear(args.hidden_size, vocab_size) if self.last else None

    def forward(self, tokens, hidden):
        h = self.embed(tokens).transpose(0, 1) if self.first else hidden
        for layer in self.layers:
            h = layer(h)
        return self.head(h) if self.last else h


def forward_step(data_iterator, model, input_tensor):
    tokens, labels = next(data_iterator)
    out = model(tokens.cuda(), input_tensor)
    if mpu.is_pipeline_last_stage():
        loss = nn.functional.cross_entropy(out.flatten(0, 1), labels.cuda().t().flatten())
        return loss, {"lm loss": loss.detach()}
    return out


def batches(args):
    g = torch.Generator().manual_seed(1234)
    while True:
        tokens = torch.randint(0, 50304, (args.batch_size, args.seq_length + 1), generator=g)
        yield tokens[:, :-1], tokens[:, 1:]


def main():
    args = set_args()
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    mpu.initialize_model_parallel(dist.get_world_size())
    model = Stage(args).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1.5e-4)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: min(1.0, (it + 1) / 2000))
    data_iterator = batches(get_args())
    for iteration in range(500000):
        losses = train_step(forward_step, data_iterator, model, optimizer, lr_scheduler)
        if mpu.is_pipeline_last_stage() and iteration % 100 == 0:
            print(f"iteration {iteration}: lm loss {torch.stack([l['lm loss'] for l in losses]).mean().item():.4f}")


if __name__ == "__main__":
    main()
