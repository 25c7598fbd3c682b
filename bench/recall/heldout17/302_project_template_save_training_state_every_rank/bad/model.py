import os.path as osp
from collections import OrderedDict

import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Model:
    """Wraps the network, its optimizer and its checkpoints for the trainer."""

    def __init__(self, hp, net_arch, loss_f, rank=0, world_size=1):
        self.hp = hp
        self.device = hp["device"]
        self.rank = rank
        self.world_size = world_size
        self.net = net_arch.to(self.device)
        if self.device != "cpu" and self.world_size != 0:
            self.net = DDP(self.net, device_ids=[self.rank])
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=hp["lr"])
        self.loss_f = loss_f
        self.step = 0
        self.epoch = -1
        self.input = self.GT = None
        self.loss_v = None

    def feed_data(self, input, GT):
        self.input = input.to(self.device)
        self.GT = GT.to(self.device)

    def optimize_parameters(self):
        self.net.train()
        self.optimizer.zero_grad()
        loss_v = self.loss_f(self.net(self.input), self.GT)
        loss_v.backward()
        self.optimizer.step()
        self.loss_v = loss_v.item()

    def save_network(self, logger):
        if self.rank == 0:
            save_path = osp.join(self.hp["chkpt_dir"], "%s_%d.pt" % (self.hp["name"], self.step))
            state_dict = {k: v.cpu() for k, v in self.net.state_dict().items()}
            torch.save(state_dict, save_path)
            if logger is not None:
                logger.info("Saved network checkpoint to: %s" % save_path)

    def save_training_state(self, logger):
        save_path = osp.join(self.hp["chkpt_dir"], "%s_%d.state" % (self.hp["name"], self.step))
        state = {
            "model": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "step": self.step,
            "epoch": self.epoch,
        }
        torch.save(state, save_path)  # expect: TCK208
        if logger is not None:
            logger.info("Saved training state to: %s" % save_path)

    def load_training_state(self, path):
        state = torch.load(path, map_location="cpu", weights_only=True)
        clean = OrderedDict((k[7:] if k.startswith("module.") else k, v) for k, v in state["model"].items())
        target = self.net.module if isinstance(self.net, DDP) else self.net
        target.load_state_dict(clean)
        self.optimizer.load_state_dict(state["optimizer"])
        self.step, self.epoch = state["step"], state["epoch"]
