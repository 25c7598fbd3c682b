import os
from datetime import timedelta

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import wandb
from tqdm import tqdm


class AverageMeter:

    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class BaseMethod(nn.Module):
    """Trains `model` on `datamodule.train_loader`; one process per GPU under DDP."""

    def __init__(self, model, datamodule, params, ckp_path, local_rank=0, use_ddp=False, use_fp16=False):
        super().__init__()
        self.model = model
        self.params = params
        self.use_ddp = use_ddp
        self.local_rank = local_rank
        self._init_env()

        self.use_fp16 = use_fp16
        if use_fp16:
            self.grad_scaler = torch.cuda.amp.GradScaler()

        self.train_loader = datamodule.train_loader
        self.val_loader = datamodule.val_loader

        self.ckp_path = ckp_path
        self.it, self.epoch = 0, 0
        self.max_epochs = params.max_epochs
        self.print_iter = params.print_iter
        self.save_iter = int(np.ceil(len(self.train_loader) * params.save_interval)) + 1
        self.clip_grad = params.clip_grad
        self.stats_dict = None
        if self.local_rank == 0:
            os.makedirs(self.ckp_path, exist_ok=True)
        self.optimizer = optim.AdamW(
            filter(lambda p: p.requires_grad, self.model.parameters()), lr=params.lr,
            weight_decay=params.weight_decay)

    def _init_env(self):
        if self.use_ddp:
            torch.cuda.set_device(self.local_rank)
            torch.distributed.init_process_group('nccl', init_method='env://', timeout=timedelta(hours=2))
            self.device = torch.device(f'cuda:{self.local_rank}')
        else:
            self.device = torch.device('cuda')
        self.model = self.model.to(self.device)
        if self.use_ddp:
            self.model = nn.parallel.DistributedDataParallel(self.model, device_ids=[self.local_rank])
        else:
            # only there so that `self.model.module` works without DDP
            self.model = nn.parallel.DataParallel(self.model, device_ids=[0])

    def fit(self, resume_from=''):
        self.load_ckp(resume_from)
        for _ in range(self.epoch, self.max_epochs):
            self.training_epoch()

    def training_epoch(self):
        """Train one epoch: loss via `self._training_step`, backward and optimizer step inside it."""
        self._training_epoch_start()
        with tqdm(total=len(self.train_loader), desc=f'Train epoch {self.epoch}, rank {self.local_rank}') as t:
            for batch_idx, batch_data in enumerate(self.train_loader):
                torch.cuda.empty_cache()  # expect: TCK203
                self.epoch_it = batch_idx
                batch_data = {k: v.to(self.device) for k, v in batch_data.items()}

                # model forward, loss computation, backward and optimize
                out_dict = self._training_step(batch_data)

                self._log_train(out_dict)
                self._training_step_end()

                t.set_postfix(loss=f"{out_dict['loss'].item():.4f}")
                t.update(1)
        self._training_epoch_end()

    def _training_loss_function(self, data_dict):
        out_dict = self.model(data_dict)
        out_dict = self.model.module.calc_train_loss(data_dict, out_dict)
        loss = torch.zeros((), device=self.device)
        for name, value in out_dict.items():
            if name.endswith('_loss'):
                loss = loss + value * getattr(self.params, f'{name}_w')
        out_dict['loss'] = loss
        return out_dict

    def _training_step_fp32(self, batch_data):
        out_dict = self._training_loss_function(batch_data)
        out_dict['loss'].backward()
        if self.clip_grad > 0.:
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return out_dict

    def _training_step_fp16(self, batch_data):
        with torch.cuda.amp.autocast():
            out_dict = self._training_loss_function(batch_data)
        self.grad_scaler.scale(out_dict['loss']).backward()
        if self.clip_grad > 0.:
            self.grad_scaler.unscale_(self.optimizer)
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad)
        self.grad_scaler.step(self.optimizer)
        self.grad_scaler.update()
        self.optimizer.zero_grad()
        return out_dict

    def _training_step(self, batch_data):
        if self.use_fp16:
            return self._training_step_fp16(batch_data)
        return self._training_step_fp32(batch_data)

    def _log_train(self, out_dict):
        if self.local_rank != 0:
            return
        if self.stats_dict is None:
            self.stats_dict = {k: AverageMeter() for k in out_dict}
        for k, v in out_dict.items():
            self.stats_dict[k].update(v.item())
        if (self.epoch_it + 1) % self.print_iter != 0:
            return
        log = {f'train/{k}': m.avg for k, m in self.stats_dict.items()}
        log['train/epoch'] = self.epoch
        wandb.log(log, step=self.it)
        self.stats_dict = None

    def _training_epoch_start(self):
        self.optimizer.zero_grad()
        self.model.train()
        self.stats_dict = None
        if self.use_ddp:
            self.train_loader.sampler.set_epoch(self.epoch)
            torch.distributed.barrier()

    def _training_step_end(self):
        self.it += 1
        if (self.epoch_it + 1) % self.save_iter == 0:
            self.save_ckp()
            if self.use_ddp:
                torch.distributed.barrier()

    def _training_epoch_end(self):
        self.epoch += 1
        self.stats_dict = None
        self.save_ckp()
        if self.use_ddp:
            torch.distributed.barrier()
        self.validation_epoch(self.model.module)

    @torch.no_grad()
    def validation_epoch(self, model):
        model.eval()
        torch.cuda.empty_cache()
        meters = {}
        for batch_data in tqdm(self.val_loader, desc=f'Eval epoch {self.epoch}'):
            batch_data = {k: v.to(self.device) for k, v in batch_data.items()}
            out_dict = model.loss_function(batch_data)
            bs = out_dict.pop('batch_size', 1)
            for k, v in out_dict.items():
                meters.setdefault(k, AverageMeter()).update(v.item(), bs)
        if self.local_rank == 0:
            wandb.log({f'val/{k}': m.avg for k, m in meters.items()}, step=self.it)
        torch.cuda.empty_cache()

    @torch.no_grad()
    def save_ckp(self):
        if self.local_rank != 0:
            return
        ckp_path = os.path.join(self.ckp_path, f'model_{self.it}.pth')
        ckp = {
            'state_dict': self.model.module.state_dict(),
            'opt_state_dict': self.optimizer.state_dict(),
            'it': self.it,
            'epoch': self.epoch,
        }
        torch.save(ckp, ckp_path)
        print(f'INFO: saving checkpoint {ckp_path}')

    @torch.no_grad()
    def load_ckp(self, ckp_path):
        if not ckp_path:
            return
        ckp = torch.load(ckp_path, map_location='cpu', weights_only=True)
        self.it, self.epoch = ckp['it'], ckp['epoch']
        self.model.module.load_state_dict(ckp['state_dict'])
        self.optimizer.load_state_dict(ckp['opt_state_dict'])
