import argparse
import os.path as osp
from collections import defaultdict

import torch
from torch.utils.data import DataLoader, TensorDataset

from models import JDETiny


def make_dataset(n=512, n_ids=1000):
    imgs = torch.randn(n, 3, 64, 64)
    targets = torch.rand(n, 5)
    ids = torch.randint(0, n_ids, (n,))
    return TensorDataset(imgs, targets, ids)


def train(opt):
    dataset = make_dataset()
    dataloader = DataLoader(dataset, batch_size=opt.batch_size, shuffle=True, num_workers=4, drop_last=True)

    model = JDETiny()
    start_epoch = 0
    latest_resume = osp.join(opt.weights, "latest.pt")
    if opt.resume and osp.exists(latest_resume):
        checkpoint = torch.load(latest_resume, map_location="cpu", weights_only=True)
        model.load_state_dict(checkpoint["model"])
        start_epoch = checkpoint["epoch"] + 1
    model.cuda().train()
    optimizer = torch.optim.SGD(model.parameters(), lr=opt.lr, momentum=0.9, weight_decay=1e-4)
    if opt.resume and osp.exists(latest_resume):
        optimizer.load_state_dict(checkpoint["optimizer"])

    model = torch.nn.DataParallel(model)  # expect: TCK204
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[opt.epochs // 2, 3 * opt.epochs // 4], gamma=0.1)

    for epoch in range(start_epoch, opt.epochs):
        running = defaultdict(float)
        for i, (imgs, targets, ids) in enumerate(dataloader):
            optimizer.zero_grad()
            loss, components = model(imgs.cuda(), targets.cuda(), ids.cuda())
            loss = torch.mean(loss)
            loss.backward()
            optimizer.step()
            components = components.view(-1, 5).mean(dim=0)
            for k, name in enumerate(model.module.loss_names):
                running[name] = (running[name] * i + components[k].item()) / (i + 1)
            if i % opt.print_interval == 0:
                print(epoch, i, dict(running))

        checkpoint = {"epoch": epoch, "model": model.module.state_dict(), "optimizer": optimizer.state_dict()}
        torch.save(checkpoint, osp.join(opt.weights, "latest.pt"))
        scheduler.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--weights", type=str, default="weights")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--print-interval", type=int, default=40)
    train(parser.parse_args())
