import argparse

import numpy as np
import torch
import torch.optim as optim

from retinanet.model import RetinaNet


def make_anchors(img_batch):
    # one anchor per feature cell, enough for the loss to run
    h, w = img_batch.shape[2] // 32, img_batch.shape[3] // 32
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    boxes = np.stack([xs * 32, ys * 32, xs * 32 + 32, ys * 32 + 32], axis=-1).reshape(-1, 4)
    boxes = np.repeat(boxes, 9, axis=0)
    anchors = torch.from_numpy(boxes).float().unsqueeze(0)
    return anchors.to(img_batch.device)


def main(args=None):
    parser = argparse.ArgumentParser(description="train a RetinaNet on a CSV dataset")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--num_classes", type=int, default=80)
    opts = parser.parse_args(args)

    from dataloader import build_train_loader  # the project's CSV/COCO loaders

    loader = build_train_loader()
    retinanet = RetinaNet(opts.num_classes, make_anchors)
    if torch.cuda.is_available():
        retinanet = retinanet.cuda()

    optimizer = optim.Adam(retinanet.parameters(), lr=1e-5)
    scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3)

    for epoch in range(opts.epochs):
        retinanet.train()
        epoch_loss = []
        for data in loader:
            optimizer.zero_grad()
            if torch.cuda.is_available():
                cls_loss, reg_loss = retinanet([data["img"].cuda().float(), data["annot"].cuda()])
            else:
                cls_loss, reg_loss = retinanet([data["img"].float(), data["annot"]])
            loss = cls_loss.mean() + reg_loss.mean()
            if loss == 0:
                continue
            loss.backward()
            torch.nn.utils.clip_grad_norm_(retinanet.parameters(), 0.1)
            optimizer.step()
            epoch_loss.append(float(loss))
        scheduler.step(np.mean(epoch_loss))
        torch.save(retinanet.state_dict(), f"retinanet_{epoch}.pt")


if __name__ == "__main__":
    main()
