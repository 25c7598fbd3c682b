import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from model import HybridNetsBackbone, ModelWithLoss


class BddDataset(Dataset):
    def __init__(self, n=256, size=(384, 640)):
        self.n, self.size = n, size

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = torch.rand(3, *self.size)
        annot = torch.rand(8, 5)
        seg = torch.randint(0, 3, self.size)
        return {"img": img, "annot": annot, "segmentation": seg}


def train(opt):
    training_generator = DataLoader(BddDataset(), batch_size=opt.batch_size, shuffle=True, num_workers=4)
    val_generator = DataLoader(BddDataset(64), batch_size=opt.batch_size, shuffle=False, num_workers=4)

    model = ModelWithLoss(HybridNetsBackbone()).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), opt.lr)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=3)

    step = 0
    model.train()
    for epoch in range(opt.num_epochs):
        epoch_loss = []
        for data in training_generator:
            imgs, annot, seg_annot = data["img"].cuda(), data["annot"].cuda(), data["segmentation"].cuda()
            optimizer.zero_grad()
            cls_loss, reg_loss, seg_loss, *_ = model(imgs, annot, seg_annot)
            loss = cls_loss + reg_loss + seg_loss
            loss.backward()
            optimizer.step()
            epoch_loss.append(float(loss))
            step += 1
        scheduler.step(np.mean(epoch_loss))

        if epoch % opt.val_interval == 0:
            model.eval()
            loss_ls = []
            for data in val_generator:
                with torch.no_grad():
                    imgs = data["img"]
                    annot = data["annot"]
                    seg_annot = data["segmentation"]
                    imgs, annot, seg_annot = imgs.cuda(), annot.cuda(), seg_annot.cuda()

                cls_loss, reg_loss, seg_loss, regression, classification, segmentation = model(imgs, annot, seg_annot)  # expect: TCK113
                loss = cls_loss.mean() + reg_loss.mean() + seg_loss.mean()
                loss_ls.append(loss.item())
            print(f"Val. Epoch: {epoch}/{opt.num_epochs}. Total loss: {np.mean(loss_ls):1.5f}")
            model.train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--num_epochs", type=int, default=100)
    parser.add_argument("--val_interval", type=int, default=1)
    train(parser.parse_args())
