import argparse
import datetime
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from model import TinyBertForMaskedLM


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", default=5e-4, type=float)
    parser.add_argument("--epochs", default=3, type=int)
    parser.add_argument("--batch_size", default=64, type=int)
    parser.add_argument("--num_steps", default=2048, type=int)
    parser.add_argument("--eval_steps", default=1000, type=int)
    parser.add_argument("--load_step", default=-1, type=int)
    return parser.parse_args()


if __name__ == "__main__":
    args = parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl", timeout=datetime.timedelta(seconds=9600))
    save_path = f"./ckpts_lr_{args.lr}_numsteps_{args.num_steps}"

    model = TinyBertForMaskedLM(num_steps=args.num_steps).to(device)
    if args.load_step > 0:
        ckpt = torch.load(os.path.join(save_path, f"best({args.load_step}).th"), map_location="cpu")
        model.load_state_dict(ckpt["model"])

    model = DDP(model, device_ids=[local_rank], output_device=local_rank)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)

    ids = torch.randint(5, 30522, (4096, 64))
    train_data = TensorDataset(ids, torch.ones_like(ids))
    dev_data = TensorDataset(ids[:256], torch.ones_like(ids[:256]))
    train_sampler = DistributedSampler(train_data)
    train_loader = DataLoader(train_data, batch_size=args.batch_size, num_workers=4, pin_memory=True, sampler=train_sampler)
    dev_loader = DataLoader(dev_data, batch_size=args.batch_size * 2, num_workers=4, pin_memory=True, sampler=DistributedSampler(dev_data, shuffle=False))

    if dist.get_rank() == 0:
        os.makedirs(save_path, exist_ok=True)
        best_dev_loss = float("inf")

    model.train()
    step = args.load_step + 1
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        for input_ids, attention_mask in train_loader:
            input_ids, attention_mask = input_ids.to(device), attention_mask.to(device)
            t = torch.randint(0, args.num_steps, (input_ids.size(0),), device=device)
            corrupt = torch.rand(input_ids.shape, device=device) < (t.float() / args.num_steps).unsqueeze(1)
            noisy = input_ids.masked_fill(corrupt, 103)
            logits = model(input_ids=noisy, timestep=t, attention_mask=attention_mask)["logits"]
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), input_ids.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_value_(model.parameters(), 5)
            optimizer.step()

            if step % args.eval_steps == args.eval_steps - 1:
                model.eval()
                dev_loss = torch.zeros((), device=device)
                with torch.no_grad():
                    for dev_ids, dev_mask in dev_loader:
                        dev_ids, dev_mask = dev_ids.to(device), dev_mask.to(device)
                        t0 = torch.zeros(dev_ids.size(0), dtype=torch.long, device=device)
                        out = model(input_ids=dev_ids, timestep=t0, attention_mask=dev_mask)["logits"]
                        dev_loss += F.cross_entropy(out.reshape(-1, out.size(-1)), dev_ids.reshape(-1))
                dist.all_reduce(dev_loss)
                if dist.get_rank() == 0 and dev_loss.item() <= best_dev_loss:
                    best_dev_loss = dev_loss.item()
                    torch.save({
                        "model": model.state_dict(),  # expect: TCK209
                        "optimizer": optimizer.state_dict(),
                    }, os.path.join(save_path, f"best({step}).th"))
                model.train()
            step += 1
