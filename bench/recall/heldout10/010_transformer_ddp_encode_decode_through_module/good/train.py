import argparse
import os
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm

from model import build_transformer

SRC_VOCAB, TGT_VOCAB, PAD = 8000, 8000, 0


def get_ds(batch_size, seq_len=64, n=10_000):
    src = torch.randint(1, SRC_VOCAB, (n, seq_len))
    tgt = torch.randint(1, TGT_VOCAB, (n, seq_len + 1))
    dataset = TensorDataset(src, tgt)
    return DataLoader(dataset, batch_size=batch_size, shuffle=False, sampler=DistributedSampler(dataset, shuffle=True))


def train_model(args):
    local_rank = int(os.environ["LOCAL_RANK"])
    global_rank = int(os.environ["RANK"])
    device = torch.device("cuda", local_rank)
    Path(args.model_folder).mkdir(parents=True, exist_ok=True)

    train_dataloader = get_ds(args.batch_size)
    model = build_transformer(SRC_VOCAB, TGT_VOCAB, d_model=args.d_model).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, eps=1e-9)

    # Convert the model to DistributedDataParallel
    model = DistributedDataParallel(model, device_ids=[local_rank])
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1).to(device)

    global_step = 0
    for epoch in range(args.num_epochs):
        model.train()
        train_dataloader.sampler.set_epoch(epoch)
        batch_iterator = tqdm(train_dataloader, desc=f"Epoch {epoch:02d}", disable=local_rank != 0)
        for src, tgt in batch_iterator:
            src, tgt = src.to(device), tgt.to(device)
            decoder_input, label = tgt[:, :-1], tgt[:, 1:]
            src_pad = src == PAD
            causal = nn.Transformer.generate_square_subsequent_mask(decoder_input.shape[1], device=device)

            # Run the tensors through the DDP model (encoder, decoder and projection in its forward)
            proj_output = model(src, src_pad, decoder_input, causal)

            loss = loss_fn(proj_output.reshape(-1, TGT_VOCAB), label.reshape(-1))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            global_step += 1

        if global_rank == 0:
            torch.save(
                {
                    "epoch": epoch,
                    "model_state_dict": model.module.state_dict(),
                    "optimizer_state_dict": optimizer.state_dict(),
                    "global_step": global_step,
                },
                os.path.join(args.model_folder, f"tmodel_{epoch:02d}.pt"),
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--num_epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--d_model", type=int, default=512)
    parser.add_argument("--model_folder", type=str, default="weights")
    args = parser.parse_args()
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    train_model(args)
    dist.destroy_process_group()
