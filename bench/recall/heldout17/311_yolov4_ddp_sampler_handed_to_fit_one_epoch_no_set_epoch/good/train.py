import os

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset

from utils_fit import fit_one_epoch


class YoloDataset(Dataset):
    def __init__(self, n, input_shape=(416, 416)):
        self.n = n
        self.input_shape = input_shape

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        image = np.random.rand(3, *self.input_shape).astype(np.float32)
        boxes = np.random.rand(5, 5).astype(np.float32)
        return image, boxes


def yolo_dataset_collate(batch):
    images = torch.from_numpy(np.array([img for img, _ in batch])).float()
    bboxes = [torch.from_numpy(box).float() for _, box in batch]
    return images, bboxes


class TinyYolo(nn.Module):
    def __init__(self, num_outputs=3 * 85):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1), nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.LeakyReLU(0.1))
        self.heads = nn.ModuleList([nn.Conv2d(64, num_outputs, 1) for _ in range(3)])

    def forward(self, x):
        feat = self.backbone(x)
        return [head(feat) for head in self.heads]


def yolo_loss(level, output, targets):
    return output.pow(2).mean() * 1e-3 + sum(t.sum() for t in targets) * 0.0


if __name__ == "__main__":
    Cuda = True
    distributed = True
    fp16 = True
    batch_size, num_workers = 8, 4
    Init_Epoch, UnFreeze_Epoch = 0, 300

    if distributed:
        dist.init_process_group(backend="nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
    else:
        local_rank = 0

    model = TinyYolo()
    model_train = model.train()
    if Cuda:
        if distributed:
            model_train = model_train.cuda(local_rank)
            model_train = nn.parallel.DistributedDataParallel(model_train, device_ids=[local_rank], find_unused_parameters=True)
        else:
            model_train = model_train.cuda()

    scaler = torch.amp.GradScaler("cuda") if fp16 else None
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.937, nesterov=True, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=UnFreeze_Epoch)

    train_dataset = YoloDataset(2000)
    val_dataset = YoloDataset(200)
    if distributed:
        train_sampler = torch.utils.data.distributed.DistributedSampler(train_dataset, shuffle=True)
        val_sampler = torch.utils.data.distributed.DistributedSampler(val_dataset, shuffle=False)
        batch_size = batch_size // dist.get_world_size()
        shuffle = False
    else:
        train_sampler = None
        val_sampler = None
        shuffle = True

    gen = DataLoader(train_dataset, shuffle=shuffle, batch_size=batch_size, num_workers=num_workers, pin_memory=True,
                     drop_last=True, collate_fn=yolo_dataset_collate, sampler=train_sampler)
    gen_val = DataLoader(val_dataset, shuffle=False, batch_size=batch_size, num_workers=num_workers, pin_memory=True,
                         drop_last=True, collate_fn=yolo_dataset_collate, sampler=val_sampler)

    for epoch in range(Init_Epoch, UnFreeze_Epoch):
        if distributed:
            train_sampler.set_epoch(epoch)
        fit_one_epoch(model_train, yolo_loss, optimizer, epoch, gen, gen_val, Cuda, fp16, scaler, local_rank)
        scheduler.step()
        if local_rank == 0 and (epoch + 1) % 10 == 0:
            torch.save(model.state_dict(), f"ep{epoch + 1:03d}.pth")

    if distributed:
        dist.destroy_process_group()
