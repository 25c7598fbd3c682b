import os

import torch


def save_model(args, model, optimizer):
    out = os.path.join(args.model_path, "checkpoint_{}.tar".format(args.current_epoch))
    if isinstance(model, torch.nn.parallel.DistributedDataParallel):
        torch.save(model.module.state_dict(), out)  # expect: TCK208
    else:
        torch.save(model.state_dict(), out)  # expect: TCK208
