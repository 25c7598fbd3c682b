import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

from simclr import SimCLR
from simclr.modules import NT_Xent, get_resnet
from simclr.modules.transformations import TransformsSimCLR


def train(args, train_loader, model, criterion, optimizer):
    loss_epoch = 0
    for step, ((x_i, x_j), _) in enumerate(train_loader):
        optimizer.zero_grad()
        x_i = x_i.cuda(non_blocking=True)
        x_j = x_j.cuda(non_blocking=True)
        h_i, h_j, z_i, z_j = model(x_i, x_j)
        loss = criterion(z_i, z_j)
        loss.backward()
        optimizer.step()
        loss_epoch += loss.item()
    return loss_epoch


def main(gpu, args):
    rank = args.nr * args.gpus + gpu
    if args.nodes > 1:
        torch.distributed.init_process_group("nccl", rank=rank, world_size=args.world_size)
        torch.cuda.set_device(gpu)
    train_dataset = torchvision.datasets.STL10(args.dataset_dir, split="unlabeled", download=True, transform=TransformsSimCLR(size=args.image_size))
    if args.nodes > 1:
        train_sampler = torch.utils.data.distributed.DistributedSampler(train_dataset, num_replicas=args.world_size, rank=rank, shuffle=True)
    else:
        train_sampler = None
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=(train_sampler is None), drop_last=True, num_workers=args.workers, sampler=train_sampler)
    model = SimCLR(get_resnet(args.resnet, pretrained=False), args.projection_dim, 512).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    criterion = NT_Xent(args.batch_size, args.temperature, args.world_size)
    if args.nodes > 1:
        model = DDP(model, device_ids=[gpu])
    for epoch in range(args.start_epoch, args.epochs):
        if train_sampler is not None:
            train_sampler.set_epoch(epoch)
        loss_epoch = train(args, train_loader, model, criterion, optimizer)
        print(f"Epoch [{epoch}/{args.epochs}]\t Loss: {loss_epoch / len(train_loader)}")
