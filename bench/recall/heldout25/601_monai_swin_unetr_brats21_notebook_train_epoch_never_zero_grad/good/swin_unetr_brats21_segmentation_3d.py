# Notebook cells (3D brain-tumour segmentation with Swin UNETR on BraTS 2021), exported in order.
import json
import os
import tempfile
import time
from functools import partial

import numpy as np
import torch
from monai import data, transforms
from monai.data import decollate_batch
from monai.inferers import sliding_window_inference
from monai.losses import DiceLoss
from monai.metrics import DiceMetric
from monai.networks.nets import SwinUNETR
from monai.transforms import Activations, AsDiscrete
from monai.utils.enums import MetricReduction

directory = os.environ.get("MONAI_DATA_DIRECTORY")
root_dir = tempfile.mkdtemp() if directory is None else directory


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = np.where(self.count > 0, self.sum / self.count, self.sum)


def datafold_read(datalist, basedir, fold=0, key="training"):
    with open(datalist) as f:
        entries = json.load(f)[key]
    for entry in entries:
        for k in ("image", "label"):
            if isinstance(entry[k], list):
                entry[k] = [os.path.join(basedir, p) for p in entry[k]]
            else:
                entry[k] = os.path.join(basedir, entry[k])
    train = [e for e in entries if e.get("fold") != fold]
    val = [e for e in entries if e.get("fold") == fold]
    return train, val


def save_checkpoint(model, epoch, filename="model.pt", best_acc=0, dir_add=root_dir):
    torch.save({"epoch": epoch, "best_acc": best_acc, "state_dict": model.state_dict()},
               os.path.join(dir_add, filename))


def get_loader(batch_size, data_dir, json_list, fold, roi):
    train_files, validation_files = datafold_read(json_list, data_dir, fold)
    train_transform = transforms.Compose([
        transforms.LoadImaged(keys=["image", "label"]),
        transforms.ConvertToMultiChannelBasedOnBratsClassesd(keys="label"),
        transforms.CropForegroundd(keys=["image", "label"], source_key="image", k_divisible=list(roi)),
        transforms.RandSpatialCropd(keys=["image", "label"], roi_size=list(roi), random_size=False),
        transforms.RandFlipd(keys=["image", "label"], prob=0.5, spatial_axis=0),
        transforms.NormalizeIntensityd(keys="image", nonzero=True, channel_wise=True),
    ])
    val_transform = transforms.Compose([
        transforms.LoadImaged(keys=["image", "label"]),
        transforms.ConvertToMultiChannelBasedOnBratsClassesd(keys="label"),
        transforms.NormalizeIntensityd(keys="image", nonzero=True, channel_wise=True),
    ])
    train_loader = data.DataLoader(data.Dataset(train_files, transform=train_transform),
                                   batch_size=batch_size, shuffle=True, num_workers=8, pin_memory=True)
    val_loader = data.DataLoader(data.Dataset(validation_files, transform=val_transform),
                                 batch_size=1, shuffle=False, num_workers=8, pin_memory=True)
    return train_loader, val_loader


data_dir = "/data/brats2021challenge"
json_list = "./brats21_folds.json"
roi = (128, 128, 128)
batch_size = 2
sw_batch_size = 4
fold = 1
infer_overlap = 0.5
max_epochs = 100
val_every = 10
train_loader, val_loader = get_loader(batch_size, data_dir, json_list, fold, roi)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = SwinUNETR(in_channels=4, out_channels=3, feature_size=48, drop_rate=0.0, attn_drop_rate=0.0,
                  dropout_path_rate=0.0, use_checkpoint=True).to(device)

torch.backends.cudnn.benchmark = True
dice_loss = DiceLoss(to_onehot_y=False, sigmoid=True)
post_sigmoid = Activations(sigmoid=True)
post_pred = AsDiscrete(argmax=False, threshold=0.5)
dice_acc = DiceMetric(include_background=True, reduction=MetricReduction.MEAN_BATCH, get_not_nans=True)
model_inferer = partial(sliding_window_inference, roi_size=list(roi), sw_batch_size=sw_batch_size,
                        predictor=model, overlap=infer_overlap)

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-5)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max_epochs)


def train_epoch(model, loader, optimizer, epoch, loss_func):
    model.train()
    start_time = time.time()
    run_loss = AverageMeter()
    for idx, batch_data in enumerate(loader):
        data, target = batch_data["image"].to(device), batch_data["label"].to(device)
        optimizer.zero_grad()
        logits = model(data)
        loss = loss_func(logits, target)
        loss.backward()
        optimizer.step()
        run_loss.update(loss.item(), n=batch_size)
        print(f"Epoch {epoch}/{max_epochs} {idx}/{len(loader)}", f"loss: {run_loss.avg:.4f}",
              f"time {time.time() - start_time:.2f}s")
        start_time = time.time()
    return run_loss.avg


def val_epoch(model, loader, epoch, acc_func, model_inferer=None, post_sigmoid=None, post_pred=None):
    model.eval()
    start_time = time.time()
    run_acc = AverageMeter()
    with torch.no_grad():
        for idx, batch_data in enumerate(loader):
            data, target = batch_data["image"].to(device), batch_data["label"].to(device)
            logits = model_inferer(data)
            labels = decollate_batch(target)
            outputs = [post_pred(post_sigmoid(p)) for p in decollate_batch(logits)]
            acc_func.reset()
            acc_func(y_pred=outputs, y=labels)
            acc, not_nans = acc_func.aggregate()
            run_acc.update(acc.cpu().numpy(), n=not_nans.cpu().numpy())
            print(f"Val {epoch}/{max_epochs} {idx}/{len(loader)}", ", dice_tc:", run_acc.avg[0],
                  ", dice_wt:", run_acc.avg[1], ", dice_et:", run_acc.avg[2],
                  f", time {time.time() - start_time:.2f}s")
            start_time = time.time()
    return run_acc.avg


def trainer(model, train_loader, val_loader, optimizer, loss_func, acc_func, scheduler, model_inferer=None,
            start_epoch=0, post_sigmoid=None, post_pred=None):
    val_acc_max = 0.0
    dices_tc, dices_wt, dices_et, dices_avg, loss_epochs, trains_epoch = [], [], [], [], [], []
    for epoch in range(start_epoch, max_epochs):
        print(time.ctime(), "Epoch:", epoch)
        epoch_time = time.time()
        train_loss = train_epoch(model, train_loader, optimizer, epoch=epoch, loss_func=loss_func)
        print(f"Final training  {epoch}/{max_epochs - 1}", f"loss: {train_loss:.4f}",
              f"time {time.time() - epoch_time:.2f}s")
        if (epoch + 1) % val_every == 0 or epoch == 0:
            loss_epochs.append(train_loss)
            trains_epoch.append(int(epoch))
            epoch_time = time.time()
            val_acc = val_epoch(model, val_loader, epoch=epoch, acc_func=acc_func, model_inferer=model_inferer,
                                post_sigmoid=post_sigmoid, post_pred=post_pred)
            dice_tc, dice_wt, dice_et = val_acc[0], val_acc[1], val_acc[2]
            val_avg_acc = np.mean(val_acc)
            print(f"Final validation stats {epoch}/{max_epochs - 1}", ", dice_tc:", dice_tc, ", dice_wt:", dice_wt,
                  ", dice_et:", dice_et, ", Dice_Avg:", val_avg_acc, f", time {time.time() - epoch_time:.2f}s")
            dices_tc.append(dice_tc)
            dices_wt.append(dice_wt)
            dices_et.append(dice_et)
            dices_avg.append(val_avg_acc)
            if val_avg_acc > val_acc_max:
                print(f"new best ({val_acc_max:.6f} --> {val_avg_acc:.6f}). ")
                val_acc_max = val_avg_acc
                save_checkpoint(model, epoch, best_acc=val_acc_max)
            scheduler.step()
    print("Training Finished !, Best Accuracy: ", val_acc_max)
    return val_acc_max, dices_tc, dices_wt, dices_et, dices_avg, loss_epochs, trains_epoch


start_epoch = 0
(val_acc_max, dices_tc, dices_wt, dices_et, dices_avg, loss_epochs, trains_epoch) = trainer(
    model=model,
    train_loader=train_loader,
    val_loader=val_loader,
    optimizer=optimizer,
    loss_func=dice_loss,
    acc_func=dice_acc,
    scheduler=scheduler,
    model_inferer=model_inferer,
    start_epoch=start_epoch,
    post_sigmoid=post_sigmoid,
    post_pred=post_pred,
)
print(f"train completed, best average dice: {val_acc_max:.4f} ")
