import logging

import numpy as np
import torch

from model import PointFeatureNet


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += float(val) * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class HardestContrastiveTrainer:
    def __init__(self, config, data_loader, val_data_loader):
        self.config = config
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = PointFeatureNet(feat_dim=config["feat_dim"]).to(self.device)
        self.optimizer = torch.optim.SGD(
            self.model.parameters(), lr=config["lr"], momentum=0.8, weight_decay=1e-4
        )
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, 0.99)
        self.data_loader = data_loader
        self.val_data_loader = val_data_loader
        self.val_max_iter = config["val_max_iter"]
        self.pos_thresh = config["pos_thresh"]
        self.neg_thresh = config["neg_thresh"]

    def train(self):
        for epoch in range(1, self.config["max_epoch"] + 1):
            self._train_epoch(epoch)
            self.scheduler.step()
            val_dict = self._valid_epoch()
            logging.info("epoch %d hit_ratio %.4f", epoch, val_dict["hit_ratio"])

    def _loss(self, F0, F1, pos_pairs):
        pos = (F0[pos_pairs[:, 0]] - F1[pos_pairs[:, 1]]).pow(2).sum(1)
        dist = torch.cdist(F0[pos_pairs[:, 0]], F1)
        dist = dist + 1e4 * torch.nn.functional.one_hot(pos_pairs[:, 1], F1.size(0))
        neg = dist.min(dim=1).values
        pos_loss = torch.relu(pos.sqrt() - self.pos_thresh).pow(2).mean()
        neg_loss = torch.relu(self.neg_thresh - neg).pow(2).mean()
        return pos_loss + neg_loss

    def _train_epoch(self, epoch):
        self.model.train()
        for input_dict in self.data_loader:
            self.optimizer.zero_grad()
            F0 = self.model(input_dict["xyz0"][0].to(self.device), input_dict["feats0"][0].to(self.device))
            F1 = self.model(input_dict["xyz1"][0].to(self.device), input_dict["feats1"][0].to(self.device))
            loss = self._loss(F0, F1, input_dict["pairs"][0].to(self.device))
            loss.backward()
            self.optimizer.step()

    def _valid_epoch(self):
        # Change the network to evaluation mode
        self.model.eval()
        hit_ratio_meter = AverageMeter()
        tot_num_data = len(self.val_data_loader.dataset)
        if self.val_max_iter > 0:
            tot_num_data = min(self.val_max_iter, tot_num_data)
        data_loader_iter = iter(self.val_data_loader)

        with torch.no_grad():
            for batch_idx in range(tot_num_data):
                input_dict = next(data_loader_iter)
                xyz0 = input_dict["xyz0"][0].to(self.device)
                xyz1 = input_dict["xyz1"][0].to(self.device)
                F0 = self.model(xyz0, input_dict["feats0"][0].to(self.device))
                F1 = self.model(xyz1, input_dict["feats1"][0].to(self.device))
                nn_idx = torch.cdist(F0, F1).argmin(dim=1)
                dist = (xyz0 - xyz1[nn_idx]).norm(dim=1)
                hit_ratio_meter.update((dist < 0.1).float().mean().item())

        return {"hit_ratio": hit_ratio_meter.avg}
