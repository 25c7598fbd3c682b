import os

import torch
import torch.distributed as dist

from kbnet_model import KBNetModel


def train(train_loader, n_epoch):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    model = KBNetModel(device)
    model.distributed_data_parallel(local_rank)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for epoch in range(n_epoch):
        for image, sparse_depth in train_loader:
            image, sparse_depth = image.to(device), sparse_depth.to(device)
            output_depth = model.forward(image, sparse_depth)
            loss = model.compute_loss(output_depth, sparse_depth)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
