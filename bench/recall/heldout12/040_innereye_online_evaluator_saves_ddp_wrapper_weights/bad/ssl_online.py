from typing import Any, Dict

import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import SyncBatchNorm
from torch.nn.parallel import DistributedDataParallel


class LinearEvaluator(nn.Module):
    def __init__(self, n_input, n_classes, p=0.1, n_hidden=512):
        super().__init__()
        self.block = nn.Sequential(
            nn.Linear(n_input, n_hidden), nn.BatchNorm1d(n_hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(n_hidden, n_classes),
        )

    def forward(self, x):
        return self.block(x)


class SSLOnlineEvaluator(pl.Callback):
    OPTIMIZER_STATE_NAME = "evaluator_optimizer"
    EVALUATOR_STATE_NAME = "evaluator_weights"

    def __init__(self, z_dim, num_classes, learning_rate=1e-4):
        super().__init__()
        self.evaluator = LinearEvaluator(z_dim, num_classes)
        self.optimizer = torch.optim.Adam(self.evaluator.parameters(), lr=learning_rate, weight_decay=1e-4)

    def on_save_checkpoint(self, trainer, pl_module, checkpoint: Dict[str, Any]) -> Dict[str, Any]:
        return {
            self.OPTIMIZER_STATE_NAME: self.optimizer.state_dict(),
            self.EVALUATOR_STATE_NAME: self.evaluator.state_dict(),  # expect: TCK209
        }

    def on_load_checkpoint(self, trainer, pl_module, callback_state: Dict[str, Any]) -> None:
        self.optimizer.load_state_dict(callback_state[self.OPTIMIZER_STATE_NAME])
        # called before the evaluator is wrapped with DDP
        self.evaluator.load_state_dict(callback_state[self.EVALUATOR_STATE_NAME])

    def on_pretrain_routine_start(self, trainer, pl_module) -> None:
        self.evaluator.to(pl_module.device)
        if trainer.world_size > 1:
            self.evaluator = SyncBatchNorm.convert_sync_batchnorm(self.evaluator)
            self.evaluator = DistributedDataParallel(self.evaluator, device_ids=[pl_module.device])

    def shared_step(self, batch, pl_module):
        x, y = batch
        with torch.no_grad():
            representations = pl_module.encoder(x.to(pl_module.device)).flatten(1)
        preds = self.evaluator(representations.detach())
        return F.cross_entropy(preds, y.to(pl_module.device))

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        loss = self.shared_step(batch, pl_module)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        pl_module.log("ssl_online_evaluator/train/loss", loss.detach(), on_epoch=True)
