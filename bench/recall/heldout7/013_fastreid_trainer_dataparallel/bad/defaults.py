import torch
from torch.nn.parallel import DataParallel

from fastreid.modeling.meta_arch import build_model
from fastreid.solver import build_lr_scheduler, build_optimizer


class DefaultTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        model = self.build_model(cfg)
        self.optimizer = build_optimizer(cfg, model)
        if cfg.MODEL.DEVICE == "cuda" and torch.cuda.device_count() > 1:
            model = DataParallel(model)  # expect: TCK204
        model = model.cuda()
        self.model = model
        self.scheduler = build_lr_scheduler(cfg, self.optimizer)

    @classmethod
    def build_model(cls, cfg):
        return build_model(cfg)

    def run_step(self, data):
        loss_dict = self.model(data)
        losses = sum(loss_dict.values())
        self.optimizer.zero_grad()
        losses.backward()
        self.optimizer.step()
        self.scheduler.step()
