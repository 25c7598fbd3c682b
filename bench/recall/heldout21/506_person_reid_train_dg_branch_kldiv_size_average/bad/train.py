import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model import ft_net

parser = argparse.ArgumentParser(description="Training")
parser.add_argument("--batchsize", default=32, type=int)
parser.add_argument("--lr", default=0.05, type=float)
parser.add_argument("--num_epochs", default=60, type=int)
parser.add_argument("--DG", action="store_true", help="use extra DG-Market dataset for training")
parser.add_argument("--warm_epoch", default=0, type=int)
opt = parser.parse_args()


def make_loaders(num_classes=751):
    train = TensorDataset(torch.randn(256, 3, 256, 128), torch.randint(0, num_classes, (256,)))
    val = TensorDataset(torch.randn(64, 3, 256, 128), torch.randint(0, num_classes, (64,)))
    # DG-Market: pairs of generated images of the same identity, no labels used
    dg = TensorDataset(torch.randn(256, 3, 256, 128), torch.randn(256, 3, 256, 128), torch.zeros(256))
    return {
        "train": DataLoader(train, batch_size=opt.batchsize, shuffle=True, num_workers=4, drop_last=True),
        "val": DataLoader(val, batch_size=opt.batchsize, shuffle=False, num_workers=4),
        "DG": DataLoader(dg, batch_size=opt.batchsize // 2, shuffle=True, num_workers=4, drop_last=True),
    }


def train_model(model, criterion, optimizer, scheduler, dataloaders, num_epochs=25):
    since = time.time()
    sm = nn.Softmax(dim=1)
    log_sm = nn.LogSoftmax(dim=1)
    warm_up = 0.1
    warm_iteration = len(dataloaders["train"]) * opt.warm_epoch
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            model.train(phase == "train")
            running_loss, running_corrects, seen = 0.0, 0.0, 0
            for inputs, labels in dataloaders[phase]:
                inputs, labels = inputs.cuda(), labels.cuda()
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    _, preds = torch.max(outputs.data, 1)
                    loss = criterion(outputs, labels)
                del inputs
                # extra DG-Market images: make the two views agree with their mean prediction
                if opt.DG and phase == "train" and epoch > num_epochs * 0.1:
                    try:
                        _, batch = DGloader_iter.__next__()
                    except (StopIteration, UnboundLocalError):
                        DGloader_iter = enumerate(dataloaders["DG"])
                        _, batch = DGloader_iter.__next__()
                    inputs1, inputs2, _ = batch
                    outputs1 = model(inputs1.cuda().detach())
                    outputs2 = model(inputs2.cuda().detach())
                    mean_pred = sm(outputs1 + outputs2)
                    kl_loss = nn.KLDivLoss(size_average=False)  # expect: TCK916
                    reg = (kl_loss(log_sm(outputs2), mean_pred) + kl_loss(log_sm(outputs1), mean_pred)) / 2
                    loss += 0.01 * reg
                    del inputs1, inputs2
                if epoch < opt.warm_epoch and phase == "train":
                    warm_up = min(1.0, warm_up + 0.9 / warm_iteration)
                    loss = loss * warm_up
                if phase == "train":
                    loss.backward()
                    optimizer.step()
                running_loss += loss.item() * labels.size(0)
                running_corrects += float(torch.sum(preds == labels.data))
                seen += labels.size(0)
            if phase == "train":
                scheduler.step()
            print(f"{phase} epoch {epoch} loss {running_loss / seen:.4f} acc {running_corrects / seen:.4f}")
    print(f"Training complete in {time.time() - since:.0f}s")
    return model


if __name__ == "__main__":
    dataloaders = make_loaders()
    model = ft_net(751).cuda()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=opt.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=opt.num_epochs * 2 // 3, gamma=0.1)
    train_model(model, criterion, optimizer, scheduler, dataloaders, num_epochs=opt.num_epochs)
