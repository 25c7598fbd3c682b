import logging
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import dist_utils


class Runner:
    """Owns the model, optimizer and loaders of one vision-language training job."""

    def __init__(self, run_cfg, task, model, datasets, output_dir):
        self.run_cfg = run_cfg
        self.task = task
        self.datasets = datasets
        self.output_dir = output_dir
        self.max_epoch = run_cfg.max_epoch
        self.evaluate_only = run_cfg.evaluate_only
        self.valid_splits = run_cfg.valid_splits
        self._model = model
        self._wrapped_model = None
        self._optimizer = None
        self._train_loader = None
        os.makedirs(output_dir, exist_ok=True)

    @property
    def device(self):
        return torch.device(self.run_cfg.device)

    @property
    def use_distributed(self):
        return self.run_cfg.distributed

    @property
    def model(self):
        if self._wrapped_model is None:
            self._model = self._model.to(self.device)
            if self.use_distributed:
                self._wrapped_model = torch.nn.parallel.DistributedDataParallel(
                    self._model, device_ids=[self.run_cfg.gpu]
                )
            else:
                self._wrapped_model = self._model
        return self._wrapped_model

    @property
    def model_without_ddp(self):
        return self.model.module if self.use_distributed else self.model

    @property
    def optimizer(self):
        if self._optimizer is None:
            self._optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.run_cfg.init_lr, weight_decay=0.05)
        return self._optimizer

    @property
    def train_loader(self):
        if self._train_loader is None:
            dataset = self.datasets["train"]
            sampler = None
            if self.use_distributed:
                sampler = DistributedSampler(
                    dataset, num_replicas=dist_utils.get_world_size(), rank=dist_utils.get_rank(), shuffle=True
                )
            self._train_loader = DataLoader(
                dataset, batch_size=self.run_cfg.batch_size, sampler=sampler, shuffle=sampler is None, num_workers=4
            )
        return self._train_loader

    def train(self):
        best_agg_metric = 0
        for cur_epoch in range(self.max_epoch):
            if not self.evaluate_only:
                if self.use_distributed:
                    self.train_loader.sampler.set_epoch(cur_epoch)
                self.train_epoch(cur_epoch)

            if len(self.valid_splits) > 0:
                for split_name in self.valid_splits:
                    val_log = self.evaluation(split_name)
                    if dist_utils.is_main_process():
                        agg_metrics = val_log["agg_metrics"]
                        if agg_metrics > best_agg_metric and split_name == "val":
                            best_agg_metric = agg_metrics
                            self.save_checkpoint(cur_epoch, is_best=True)
            else:
                # no validation split is provided.
                if not self.evaluate_only:
                    self.save_checkpoint(cur_epoch, is_best=False)

            if self.evaluate_only:
                break
            if self.use_distributed:
                dist.barrier()

    def train_epoch(self, epoch):
        self.model.train()
        for samples in self.train_loader:
            samples = {k: v.to(self.device, non_blocking=True) for k, v in samples.items()}
            loss = self.model(samples)["loss"]
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        logging.info("epoch %d done, last loss %.4f", epoch, loss.item())

    @torch.no_grad()
    def evaluation(self, split_name):
        model = self.model_without_ddp
        model.eval()
        return self.task.evaluation(model, self.datasets[split_name])

    def save_checkpoint(self, cur_epoch, is_best=False):
        save_obj = {
            "model": self.model_without_ddp.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "config": vars(self.run_cfg),
            "epoch": cur_epoch,
        }
        save_to = os.path.join(self.output_dir, "checkpoint_{}.pth".format("best" if is_best else cur_epoch))
        logging.info("Saving checkpoint at epoch %d to %s.", cur_epoch, save_to)
        torch.save(save_obj, save_to)  # expect: TCK208
