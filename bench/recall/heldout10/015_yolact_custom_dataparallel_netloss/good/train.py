import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Yolact(nn.Module):
    def __init__(self, num_classes=81):
        super().__init__()
        backbone = torchvision.models.resnet50(weights=None)
        self.backbone = nn.Sequential(*list(backbone.children())[:-2])
        self.head = nn.Conv2d(2048, num_classes + 4, 1)

    def forward(self, x):
        return self.head(self.backbone(x))


class MultiBoxLoss(nn.Module):
    def forward(self, preds, targets):
        cls_logits, boxes = preds[:, :-4], preds[:, -4:]
        return {
            "C": F.cross_entropy(cls_logits.mean((2, 3)), targets[:, 0].long()),
            "B": F.smooth_l1_loss(boxes.mean((2, 3)), targets[:, 1:5]),
        }


class NetLoss(nn.Module):
    """Runs the network and the loss together, so DataParallel computes the loss on every GPU."""

    def __init__(self, net, criterion):
        super().__init__()
        self.net = net
        self.criterion = criterion

    def forward(self, images, targets):
        preds = self.net(images)
        return self.criterion(preds, targets)


def train(args):
    # one process per GPU, launched with torchrun
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    dataset = TensorDataset(torch.randn(512, 3, 256, 256), torch.rand(512, 5) * torch.tensor([80, 1, 1, 1, 1]))
    sampler = DistributedSampler(dataset, shuffle=True)
    data_loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=4, drop_last=True)

    yolact_net = Yolact()
    criterion = MultiBoxLoss()
    net = DDP(NetLoss(yolact_net, criterion).cuda(), device_ids=[local_rank])
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)

    for epoch in range(args.num_epochs):
        sampler.set_epoch(epoch)
        for iteration, (images, targets) in enumerate(data_loader):
            optimizer.zero_grad()
            losses = net(images.cuda(), targets.cuda())
            loss = sum(losses[k] for k in losses)
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            torch.save(yolact_net.state_dict(), os.path.join(args.save_folder, f"yolact_{epoch}.pth"))
    dist.destroy_process_group()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--num_epochs", type=int, default=10)
    parser.add_argument("--save_folder", default="weights")
    train(parser.parse_args())
