import argparse
import os
from types import SimpleNamespace

import torch

from maskrcnn_benchmark.engine.trainer import do_train
from maskrcnn_benchmark.solver.lr_scheduler import WarmupMultiStepLR


class Checkpointer:
    def __init__(self, model, optimizer, scheduler, save_dir):
        self.model, self.optimizer, self.scheduler, self.save_dir = model, optimizer, scheduler, save_dir

    def save(self, name, **kwargs):
        data = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(), **kwargs}
        torch.save(data, os.path.join(self.save_dir, "{}.pth".format(name)))


def train(cfg, model, data_loader, device, use_amp):
    model.to(device)
    params = [{"params": [p], "lr": cfg.SOLVER.BASE_LR,
               "weight_decay": 0.0 if "bias" in n else cfg.SOLVER.WEIGHT_DECAY}
              for n, p in model.named_parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=cfg.SOLVER.BASE_LR, momentum=cfg.SOLVER.MOMENTUM)
    scheduler = WarmupMultiStepLR(optimizer, cfg.SOLVER.STEPS, cfg.SOLVER.GAMMA,
                                  warmup_factor=cfg.SOLVER.WARMUP_FACTOR, warmup_iters=cfg.SOLVER.WARMUP_ITERS)
    checkpointer = Checkpointer(model, optimizer, scheduler, cfg.OUTPUT_DIR)
    arguments = {"iteration": 0}
    do_train(model, data_loader, optimizer, scheduler, checkpointer, device, cfg.SOLVER.CHECKPOINT_PERIOD,
             arguments, use_amp, cfg)
    return model


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--accumulate-steps", type=int, default=1)
    args = parser.parse_args()
    solver = SimpleNamespace(BASE_LR=0.02, WEIGHT_DECAY=1e-4, MOMENTUM=0.9, STEPS=(60000, 80000), GAMMA=0.1,
                             WARMUP_FACTOR=1.0 / 3, WARMUP_ITERS=500, CHECKPOINT_PERIOD=2500,
                             ACCUMULATE_GRAD=args.accumulate_steps > 1, ACCUMULATE_STEPS=args.accumulate_steps)
    cfg = SimpleNamespace(SOLVER=solver, OUTPUT_DIR=".")
    print(cfg)
