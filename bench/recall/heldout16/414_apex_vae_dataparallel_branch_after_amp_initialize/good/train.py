import argparse
import os

import torch
import torch.distributed as dist
from apex import amp
from torch import optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from vae import GeneralVae, vae_loss


def main():
    # launched with: torchrun --nproc_per_node=NUM_GPUS train.py
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    model = GeneralVae(rep_size=500).cuda()
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    model, optimizer = amp.initialize(model, optimizer, opt_level="O2")
    model = DistributedDataParallel(model, device_ids=[local_rank])

    images = torch.rand(2048, 3, 64, 64)
    dataset = TensorDataset(images)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        train_loss = 0.0
        for (data,) in loader:
            data = data.cuda(non_blocking=True)
            optimizer.zero_grad()
            recon, mu, logvar = model(data)
            loss = vae_loss(recon, data, mu, logvar)
            with amp.scale_loss(loss, optimizer) as scaled_loss:
                scaled_loss.backward()
            optimizer.step()
            train_loss += loss.item()
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: loss {train_loss / len(loader):.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
