"""Train a person re-identification baseline on Market-1501 (optionally in fp16 / bf16)."""
import argparse
import time

import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler
from torchvision import datasets, transforms

from model import ft_net

parser = argparse.ArgumentParser(description="Training")
parser.add_argument("--data_dir", default="../Market/pytorch", type=str)
parser.add_argument("--batchsize", default=32, type=int)
parser.add_argument("--lr", default=0.05, type=float)
parser.add_argument("--total_epoch", default=60, type=int)
parser.add_argument("--fp16", action="store_true", help="use float16 autocast")
parser.add_argument("--bf16", action="store_true", help="use bfloat16 autocast")
opt = parser.parse_args()

fp16 = opt.fp16
bf16 = opt.bf16
if fp16:
    dtype16 = torch.float16
elif bf16:
    dtype16 = torch.bfloat16

transform_train = transforms.Compose([
    transforms.Resize((256, 128), interpolation=3),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
    transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
])
image_datasets = {x: datasets.ImageFolder(f"{opt.data_dir}/{x}", transform_train) for x in ["train", "val"]}
dataloaders = {x: torch.utils.data.DataLoader(image_datasets[x], batch_size=opt.batchsize, shuffle=True,
                                              num_workers=8, pin_memory=True)
               for x in ["train", "val"]}
dataset_sizes = {x: len(image_datasets[x]) for x in ["train", "val"]}


def train_model(model, criterion, optimizer, scheduler, scaler, num_epochs=25):
    since = time.time()
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            model.train(phase == "train")
            running_loss = 0.0
            running_corrects = 0.0
            for inputs, labels in dataloaders[phase]:
                inputs, labels = inputs.cuda(), labels.cuda()
                optimizer.zero_grad()
                if phase == "val":
                    with torch.no_grad():
                        outputs = model(inputs)
                elif bf16 or fp16:
                    with torch.amp.autocast(device_type="cuda", dtype=dtype16):
                        outputs = model(inputs)
                else:
                    outputs = model(inputs)
                _, preds = torch.max(outputs.data, 1)
                loss = criterion(outputs, labels)
                if phase == "train":
                    if bf16 or fp16:
                        scaler.scale(loss).backward()
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_corrects += float(torch.sum(preds == labels.data))
            if phase == "train":
                scheduler.step()
            print(f"{phase} Loss: {running_loss / dataset_sizes[phase]:.4f} "
                  f"Acc: {running_corrects / dataset_sizes[phase]:.4f}")
    print(f"Training complete in {time.time() - since:.0f}s")
    return model


model = ft_net(len(image_datasets["train"].classes)).cuda()
criterion = nn.CrossEntropyLoss()
ignored_params = list(map(id, model.classifier.parameters()))
base_params = filter(lambda p: id(p) not in ignored_params, model.parameters())
optimizer_ft = optim.SGD([
    {"params": base_params, "lr": 0.1 * opt.lr},
    {"params": model.classifier.parameters(), "lr": opt.lr},
], weight_decay=5e-4, momentum=0.9, nesterov=True)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=opt.total_epoch * 2 // 3, gamma=0.1)

scaler = torch.amp.GradScaler("cuda")
model = train_model(model, criterion, optimizer_ft, exp_lr_scheduler, scaler, num_epochs=opt.total_epoch)
torch.save(model.state_dict(), "net_last.pth")
