import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from fastreid.modeling.meta_arch import build_model
from fastreid.solver import build_lr_scheduler, build_optimizer


class DefaultTrainer:
    def __init__(self, cfg, local_rank=0):
        self.cfg = cfg
        model = self.build_model(cfg)
        self.optimizer = build_optimizer(cfg, model)
        model = model.cuda()
        if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
            model = DistributedDataParallel(model, device_ids=[local_rank], broadcast_buffers=False)
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
