import torch


def validate(opt, val_loader, model):
    model.val_start()
    with torch.no_grad():
        for images, captions in val_loader:
            img_emb, cap_emb = model.forward_emb(images, captions)
    return 0.0


def train(opt, train_loader, model, epoch, val_loader):
    model.train_start()
    for i, (images, captions) in enumerate(train_loader):
        model.train_emb(images, captions)
        if model.Eiters % opt.val_step == 0:
            validate(opt, val_loader, model)
            model.train_start()
