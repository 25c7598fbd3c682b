import argparse
import logging
import os

import torch
import torch.nn as nn
from torch import optim
from torch.utils.data import DataLoader, random_split
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from eval import eval_net
from unet import UNet
from utils.dataset import BasicDataset

dir_img = "data/imgs/"
dir_mask = "data/masks/"
dir_checkpoint = "checkpoints/"


def train_net(net, device, epochs=5, batch_size=1, lr=0.001, val_percent=0.1, save_cp=True, img_scale=0.5):
    dataset = BasicDataset(dir_img, dir_mask, img_scale)
    n_val = int(len(dataset) * val_percent)
    n_train = len(dataset) - n_val
    train_set, val_set = random_split(dataset, [n_train, n_val])
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=8, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, shuffle=False, num_workers=8, pin_memory=True,
                            drop_last=True)

    writer = SummaryWriter(comment=f"LR_{lr}_BS_{batch_size}_SCALE_{img_scale}")
    global_step = 0
    eval_every = max(1, len(dataset) // (10 * batch_size))

    optimizer = optim.RMSprop(net.parameters(), lr=lr, weight_decay=1e-8, momentum=0.9)
    scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min" if net.n_classes > 1 else "max", patience=2)
    criterion = nn.CrossEntropyLoss() if net.n_classes > 1 else nn.BCEWithLogitsLoss()

    for epoch in range(epochs):
        net.train()
        epoch_loss = 0.0
        with tqdm(total=n_train, desc=f"Epoch {epoch + 1}/{epochs}", unit="img") as pbar:
            for batch in train_loader:
                imgs = batch["image"].to(device=device, dtype=torch.float32)
                mask_type = torch.float32 if net.n_classes == 1 else torch.long
                true_masks = batch["mask"].to(device=device, dtype=mask_type)

                masks_pred = net(imgs)
                loss = criterion(masks_pred, true_masks)
                epoch_loss += loss.item()
                writer.add_scalar("Loss/train", loss.item(), global_step)
                pbar.set_postfix(**{"loss (batch)": loss.item()})

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_value_(net.parameters(), 0.1)
                optimizer.step()

                pbar.update(imgs.shape[0])
                global_step += 1
                if global_step % eval_every == 0:
                    val_score = eval_net(net, val_loader, device)  # expect: TCK106
                    scheduler.step(val_score)
                    writer.add_scalar("learning_rate", optimizer.param_groups[0]["lr"], global_step)
                    if net.n_classes > 1:
                        logging.info(f"Validation cross entropy: {val_score}")
                        writer.add_scalar("Loss/test", val_score, global_step)
                    else:
                        logging.info(f"Validation Dice Coeff: {val_score}")
                        writer.add_scalar("Dice/test", val_score, global_step)

        if save_cp:
            os.makedirs(dir_checkpoint, exist_ok=True)
            torch.save(net.state_dict(), os.path.join(dir_checkpoint, f"CP_epoch{epoch + 1}.pth"))
            logging.info(f"Checkpoint {epoch + 1} saved")
    writer.close()


def get_args():
    parser = argparse.ArgumentParser(description="Train the UNet on images and target masks")
    parser.add_argument("-e", "--epochs", type=int, default=5)
    parser.add_argument("-b", "--batch-size", dest="batchsize", type=int, default=1)
    parser.add_argument("-l", "--learning-rate", dest="lr", type=float, default=0.1)
    parser.add_argument("-f", "--load", type=str, default="")
    parser.add_argument("-s", "--scale", type=float, default=0.5)
    parser.add_argument("-v", "--validation", dest="val", type=float, default=10.0)
    return parser.parse_args()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")
    args = get_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = UNet(n_channels=3, n_classes=1, bilinear=True)
    if args.load:
        net.load_state_dict(torch.load(args.load, map_location=device))
    net.to(device=device)
    train_net(net=net, device=device, epochs=args.epochs, batch_size=args.batchsize, lr=args.lr,
              img_scale=args.scale, val_percent=args.val / 100)
