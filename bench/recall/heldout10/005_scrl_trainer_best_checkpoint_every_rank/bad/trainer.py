import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

import comm


class BYOLTrainer:
    def __init__(self, cfg, online_network, predictor, train_loader, eval_fn):
        self.cfg = cfg
        self.local_rank = int(os.environ.get("LOCAL_RANK", 0))
        dist.init_process_group(backend="nccl")
        torch.cuda.set_device(self.local_rank)
        self.device = torch.device("cuda", self.local_rank)
        self.online_network = DistributedDataParallel(online_network.to(self.device), device_ids=[self.local_rank])
        self.predictor = DistributedDataParallel(predictor.to(self.device), device_ids=[self.local_rank])
        self.target_network = online_network.__class__().to(self.device)
        self.target_network.load_state_dict(online_network.state_dict())
        params = list(self.online_network.parameters()) + list(self.predictor.parameters())
        self.optimizer = torch.optim.SGD(params, lr=cfg.lr, momentum=0.9)
        self.train_loader = train_loader
        self.eval_fn = eval_fn
        self.cur_epoch = 0
        self.max_eval_score = 0.0

    def save_checkpoint(self, epoch):
        state = {
            "epoch": epoch,
            "online": self.online_network.module.state_dict(),
            "predictor": self.predictor.module.state_dict(),
            "optimizer": self.optimizer.state_dict(),
        }
        torch.save(state, os.path.join(self.cfg.save_dir, f"checkpoint_{epoch}.pth"))

    def save_best_checkpoint(self):
        state = {
            "epoch": self.cur_epoch,
            "max_eval_score": self.max_eval_score,
            "online": self.online_network.module.state_dict(),
        }
        torch.save(state, os.path.join(self.cfg.save_dir, "checkpoint_best.pth"))  # expect: TCK208

    @torch.no_grad()
    def _update_target_network(self, m=0.996):
        for p_t, p_o in zip(self.target_network.parameters(), self.online_network.module.parameters()):
            p_t.mul_(m).add_(p_o.detach(), alpha=1 - m)

    def run(self):
        for epoch in range(1, self.cfg.max_epochs + 1):
            self.cur_epoch = epoch
            self.train_loader.sampler.set_epoch(epoch)
            for views, _ in self.train_loader:
                v1, v2 = (v.to(self.device, non_blocking=True) for v in views)
                p1 = self.predictor(self.online_network(v1))
                with torch.no_grad():
                    z2 = self.target_network(v2)
                loss = 2 - 2 * F.cosine_similarity(p1, z2, dim=-1).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self._update_target_network()

            if comm.is_main_process() and epoch % self.cfg.snapshot_interval == 0:
                self.save_checkpoint(epoch)

            eval_score = self.eval_fn(self.online_network.module)
            if eval_score > self.max_eval_score:
                self.max_eval_score = eval_score
                self.save_best_checkpoint()
            comm.synchronize()
