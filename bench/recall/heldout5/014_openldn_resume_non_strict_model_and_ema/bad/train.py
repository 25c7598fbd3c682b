import os

import torch


def resume(args, model, ema_model, optimizer):
    start_epoch, best_acc = 0, 0.0
    if args.resume:
        assert os.path.isfile(args.resume), "Error: no checkpoint directory found!"
        args.out = os.path.dirname(args.resume)
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=True)
        best_acc = checkpoint["best_acc"]
        start_epoch = checkpoint["epoch"]
        model.load_state_dict(checkpoint["state_dict"], strict=False)  # expect: TCK403
        optimizer.load_state_dict(checkpoint["optimizer"])
        ema_model.load_state_dict(checkpoint["ema_state_dict"], strict=False)  # expect: TCK403
    return start_epoch, best_acc
