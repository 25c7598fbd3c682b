import argparse
import logging
import os
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.nn.utils import clip_grad_norm_
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from conformer_ctc.conformer import Conformer

SOS_EOS_ID = 1
BLANK_ID = 0


class FbankDataset(Dataset):
    """80-dim fbank utterances with their BPE token ids (stand-in for the lhotse cut sets)."""

    def __init__(self, size, num_features=80, vocab=500):
        self.size, self.num_features, self.vocab = size, num_features, vocab

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        frames = int(torch.randint(200, 800, (1,), generator=g))
        tokens = torch.randint(2, self.vocab, (frames // 40,), generator=g).tolist()
        return torch.randn(frames, self.num_features, generator=g), tokens


def collate(batch):
    feats = [f for f, _ in batch]
    lens = torch.tensor([f.size(0) for f in feats])
    return {"inputs": torch.nn.utils.rnn.pad_sequence(feats, batch_first=True), "lens": lens,
            "token_ids": [t for _, t in batch]}


def compute_loss(params, model, batch, device, is_training):
    feature = batch["inputs"].to(device)
    feature_lens = batch["lens"].to(device)
    token_ids = batch["token_ids"]

    with torch.set_grad_enabled(is_training):
        # the forward through the (possibly DDP-wrapped) model
        nnet_output, encoder_memory, memory_mask = model(feature, feature_lens)

    out_lens = (~memory_mask).sum(dim=1)
    targets = torch.cat([torch.tensor(t) for t in token_ids]).to(device)
    target_lens = torch.tensor([len(t) for t in token_ids], device=device)
    ctc_loss = F.ctc_loss(nnet_output.transpose(0, 1), targets, out_lens, target_lens,
                          blank=BLANK_ID, reduction="sum", zero_infinity=True)

    if params.att_rate != 0.0:
        with torch.set_grad_enabled(is_training):
            # the attention decoder runs on the encoder memory that DDP's own forward returned
            if hasattr(model, "module"):
                att_loss = model.module.decoder_forward(
                    encoder_memory, memory_mask, token_ids=token_ids, sos_id=SOS_EOS_ID, eos_id=SOS_EOS_ID
                )
            else:
                att_loss = model.decoder_forward(
                    encoder_memory, memory_mask, token_ids=token_ids, sos_id=SOS_EOS_ID, eos_id=SOS_EOS_ID
                )
        loss = (1.0 - params.att_rate) * ctc_loss + params.att_rate * att_loss
    else:
        loss = ctc_loss
    return loss, int(out_lens.sum())


def train_one_epoch(params, model, optimizer, train_dl, device, rank):
    model.train()
    tot_loss = torch.zeros((), device=device)
    tot_frames = 0
    for batch_idx, batch in enumerate(train_dl):
        loss, frames = compute_loss(params, model, batch, device, is_training=True)
        optimizer.zero_grad()
        loss.backward()
        clip_grad_norm_(model.parameters(), 5.0, 2.0)
        optimizer.step()
        tot_loss += loss.detach()
        tot_frames += frames
        if batch_idx % params.log_interval == 0 and rank == 0:
            logging.info(f"epoch {params.cur_epoch} batch {batch_idx} loss/frame {tot_loss.item() / tot_frames:.4f}")


def save_checkpoint(params, model, optimizer, rank):
    if rank != 0:
        return
    bare = model.module if isinstance(model, DDP) else model
    torch.save({"model": bare.state_dict(), "optimizer": optimizer.state_dict(), "epoch": params.cur_epoch},
               params.exp_dir / f"epoch-{params.cur_epoch}.pt")


def run(rank, world_size, args):
    params = args
    if world_size > 1:
        os.environ.setdefault("MASTER_ADDR", "localhost")
        os.environ.setdefault("MASTER_PORT", str(params.master_port))
        dist.init_process_group("nccl", rank=rank, world_size=world_size)
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")

    model = Conformer(num_features=80, num_classes=500, num_decoder_layers=params.num_decoder_layers)
    model.to(device)
    if world_size > 1:
        model = DDP(model, device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=params.lr, weight_decay=1e-6)

    dataset = FbankDataset(20000)
    sampler = DistributedSampler(dataset, shuffle=True) if world_size > 1 else None
    train_dl = DataLoader(dataset, batch_size=16, sampler=sampler, shuffle=sampler is None, collate_fn=collate)

    for epoch in range(params.num_epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        params.cur_epoch = epoch
        train_one_epoch(params, model, optimizer, train_dl, device, rank)
        save_checkpoint(params, model, optimizer, rank)

    if world_size > 1:
        dist.barrier()
        dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--world-size", type=int, default=1)
    parser.add_argument("--master-port", type=int, default=12354)
    parser.add_argument("--num-epochs", type=int, default=35)
    parser.add_argument("--att-rate", type=float, default=0.7)
    parser.add_argument("--num-decoder-layers", type=int, default=6)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--log-interval", type=int, default=50)
    parser.add_argument("--exp-dir", type=Path, default=Path("conformer_ctc/exp"))
    args = parser.parse_args()
    args.exp_dir.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(level=logging.INFO)
    if args.world_size > 1:
        mp.spawn(run, args=(args.world_size, args), nprocs=args.world_size, join=True)
    else:
        run(rank=0, world_size=1, args=args)


if __name__ == "__main__":
    main()
