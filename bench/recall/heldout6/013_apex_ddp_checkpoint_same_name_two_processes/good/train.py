import torch
from apex.parallel import DistributedDataParallel as DDP


def main(args, model, train_loader, criterion):
    torch.cuda.set_device(args.local_rank)
    torch.distributed.init_process_group(backend="nccl", init_method="env://")
    model = DDP(model.cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        for images, target in train_loader:
            loss = criterion(model(images.cuda()), target.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        if torch.distributed.get_rank() == 0:
            torch.save({"epoch": epoch, "state_dict": model.state_dict(), "optimizer": optimizer.state_dict()}, "checkpoint.pth")
