import argparse
import os
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils import data
from torchvision.datasets import VOCSegmentation
from tqdm import tqdm

import network
import utils
from metrics import StreamSegMetrics


def get_argparser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_root", type=str, default="./datasets/data")
    parser.add_argument("--model", type=str, default="deeplabv3plus_mobilenet")
    parser.add_argument("--output_stride", type=int, default=16, choices=[8, 16])
    parser.add_argument("--total_itrs", type=int, default=30000)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--val_batch_size", type=int, default=4)
    parser.add_argument("--weight_decay", type=float, default=1e-4)
    parser.add_argument("--val_interval", type=int, default=100)
    parser.add_argument("--ckpt", default=None, type=str)
    parser.add_argument("--continue_training", action="store_true", default=False)
    parser.add_argument("--random_seed", type=int, default=1)
    parser.add_argument("--gpu_id", type=str, default="0")
    return parser


def get_dataset(opts):
    train_dst = VOCSegmentation(root=opts.data_root, year="2012", image_set="train", download=False)
    val_dst = VOCSegmentation(root=opts.data_root, year="2012", image_set="val", download=False)
    return train_dst, val_dst


def validate(opts, model, loader, device, metrics):
    """Run the model over the validation set and return the segmentation scores."""
    metrics.reset()
    with torch.no_grad():
        for images, labels in tqdm(loader):
            images = images.to(device, dtype=torch.float32)
            labels = labels.to(device, dtype=torch.long)
            outputs = model(images)
            preds = outputs.detach().max(dim=1)[1].cpu().numpy()
            metrics.update(labels.cpu().numpy(), preds)
    return metrics.get_results()


def main():
    opts = get_argparser().parse_args()
    opts.num_classes = 21
    os.environ["CUDA_VISIBLE_DEVICES"] = opts.gpu_id
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    torch.manual_seed(opts.random_seed)
    np.random.seed(opts.random_seed)
    random.seed(opts.random_seed)

    train_dst, val_dst = get_dataset(opts)
    train_loader = data.DataLoader(train_dst, batch_size=opts.batch_size, shuffle=True, num_workers=2)
    val_loader = data.DataLoader(val_dst, batch_size=opts.val_batch_size, shuffle=True, num_workers=2)

    model_map = {
        "deeplabv3plus_resnet50": network.deeplabv3plus_resnet50,
        "deeplabv3plus_resnet101": network.deeplabv3plus_resnet101,
        "deeplabv3plus_mobilenet": network.deeplabv3plus_mobilenet,
    }
    model = model_map[opts.model](num_classes=opts.num_classes, output_stride=opts.output_stride)
    utils.set_bn_momentum(model.backbone, momentum=0.01)
    model = model.to(device)

    metrics = StreamSegMetrics(opts.num_classes)
    optimizer = torch.optim.SGD(params=[
        {"params": model.backbone.parameters(), "lr": 0.1 * opts.lr},
        {"params": model.classifier.parameters(), "lr": opts.lr},
    ], lr=opts.lr, momentum=0.9, weight_decay=opts.weight_decay)
    scheduler = utils.PolyLR(optimizer, opts.total_itrs, power=0.9)
    criterion = nn.CrossEntropyLoss(ignore_index=255, reduction="mean")

    def save_ckpt(path):
        torch.save({
            "cur_itrs": cur_itrs,
            "model_state": model.state_dict(),
            "optimizer_state": optimizer.state_dict(),
            "scheduler_state": scheduler.state_dict(),
            "best_score": best_score,
        }, path)

    utils.mkdir("checkpoints")
    best_score = 0.0
    cur_itrs = 0
    cur_epochs = 0
    if opts.ckpt is not None and os.path.isfile(opts.ckpt):
        checkpoint = torch.load(opts.ckpt, map_location="cpu")
        model.load_state_dict(checkpoint["model_state"])
        if opts.continue_training:
            optimizer.load_state_dict(checkpoint["optimizer_state"])
            scheduler.load_state_dict(checkpoint["scheduler_state"])
            cur_itrs = checkpoint["cur_itrs"]
            best_score = checkpoint["best_score"]
        del checkpoint

    interval_loss = 0
    while cur_itrs < opts.total_itrs:
        model.train()
        cur_epochs += 1
        for images, labels in train_loader:
            cur_itrs += 1

            images = images.to(device, dtype=torch.float32)
            labels = labels.to(device, dtype=torch.long)

            optimizer.zero_grad()
            outputs = model(images)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()

            interval_loss += loss.detach().cpu().numpy()
            if cur_itrs % 10 == 0:
                print("Epoch %d, Itrs %d/%d, Loss=%f" % (cur_epochs, cur_itrs, opts.total_itrs, interval_loss / 10))
                interval_loss = 0.0

            if cur_itrs % opts.val_interval == 0:
                save_ckpt("checkpoints/latest_%s_os%d.pth" % (opts.model, opts.output_stride))
                model.eval()
                val_score = validate(opts=opts, model=model, loader=val_loader, device=device, metrics=metrics)
                print(metrics.to_str(val_score))
                if val_score["Mean IoU"] > best_score:
                    best_score = val_score["Mean IoU"]
                    save_ckpt("checkpoints/best_%s_os%d.pth" % (opts.model, opts.output_stride))
                model.train()
            scheduler.step()


if __name__ == "__main__":
    main()
