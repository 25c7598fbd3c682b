import torch
from utils import CustomDataParallel


def train(model, params, opt, training_generator):
    if params.num_gpus > 0:
        model = model.cuda()
        if params.num_gpus > 1:
            model = CustomDataParallel(model, params.num_gpus)  # expect: TCK204
    optimizer = torch.optim.AdamW(model.parameters(), opt.lr)
    for epoch in range(opt.num_epochs):
        for data in training_generator:
            imgs, annot = data["img"], data["annot"]
            optimizer.zero_grad()
            cls_loss, reg_loss = model(imgs, annot)
            loss = cls_loss.mean() + reg_loss.mean()
            loss.backward()
            optimizer.step()
