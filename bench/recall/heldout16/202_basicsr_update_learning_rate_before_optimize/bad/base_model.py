import os

import torch
from torch import nn


class BaseModel:
    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cuda" if opt["gpu_ids"] is not None else "cpu")
        self.is_train = opt["is_train"]
        self.schedulers = []
        self.optimizers = []

    def feed_data(self, data):
        pass

    def optimize_parameters(self, step):
        pass

    def _set_lr(self, lr_groups_l):
        for optimizer, lr_groups in zip(self.optimizers, lr_groups_l):
            for param_group, lr in zip(optimizer.param_groups, lr_groups):
                param_group["lr"] = lr

    def _get_init_lr(self):
        return [[group["initial_lr"] for group in opt.param_groups] for opt in self.optimizers]

    def update_learning_rate(self, cur_iter, warmup_iter=-1):
        for scheduler in self.schedulers:
            scheduler.step()  # expect: TCK104
        if cur_iter < warmup_iter:
            init_lr_g_l = self._get_init_lr()
            warm_up_lr_l = [[v / warmup_iter * cur_iter for v in group] for group in init_lr_g_l]
            self._set_lr(warm_up_lr_l)

    def get_current_learning_rate(self):
        return self.optimizers[0].param_groups[0]["lr"]

    def save_network(self, network, network_label, iter_label):
        save_path = os.path.join(self.opt["path"]["models"], f"{iter_label}_{network_label}.pth")
        if isinstance(network, nn.DataParallel):
            network = network.module
        state_dict = {key: param.cpu() for key, param in network.state_dict().items()}
        torch.save(state_dict, save_path)
