import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from autoencoder import RepresentationAutoencoder


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    dataset = TensorDataset(torch.randn(512, 3, 32, 32))
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler)

    model = RepresentationAutoencoder().to(device)
    ddp_model = DDP(model, device_ids=[local_rank])
    model_woddp = ddp_model.module
    optimizer = torch.optim.AdamW(model_woddp.decoder.parameters(), lr=2e-4)

    for epoch in range(10):
        sampler.set_epoch(epoch)
        ddp_model.train()
        for (images,) in loader:
            images = images.to(device, non_blocking=True)
            recon = ddp_model(images)
            loss = F.mse_loss(recon, images)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if rank == 0:
            torch.save(model_woddp.state_dict(), f"stage1_ep{epoch}.pt")
            print(epoch, loss.item())

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
