import torch
import torch.nn.functional as F
from pytorch_lightning import Callback
from torchmetrics.functional import accuracy

from evaluator import LinearProbe


class OnlineProbe(Callback):
    """Trains a probe on the encoder's detached features while the SSL model pre-trains."""

    def __init__(self, feat_dim, num_classes, hidden=None, drop=0.2):
        super().__init__()
        self.feat_dim = feat_dim
        self.num_classes = num_classes
        self.hidden = hidden
        self.drop = drop
        self.optimizer = None

    def on_fit_start(self, trainer, pl_module):
        pl_module.probe = LinearProbe(self.feat_dim, self.num_classes, self.hidden, self.drop).to(pl_module.device)
        self.optimizer = torch.optim.Adam(pl_module.probe.parameters(), lr=1e-4)

    def _features(self, pl_module, batch):
        images, labels = batch
        x = images[-1].to(pl_module.device)
        with torch.no_grad():
            feats = pl_module(x).flatten(1)
        return feats.detach(), labels.to(pl_module.device)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        feats, y = self._features(pl_module, batch)
        preds = pl_module.probe(feats)
        loss = F.cross_entropy(preds, y)  # expect: TCK605
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        acc = accuracy(preds, y, task="multiclass", num_classes=self.num_classes)
        pl_module.log("probe_train_acc", acc, on_step=True)
        pl_module.log("probe_train_loss", loss.detach(), on_step=True)

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0):
        feats, y = self._features(pl_module, batch)
        preds = pl_module.probe(feats)
        loss = F.cross_entropy(preds, y)  # expect: TCK605
        acc = accuracy(preds, y, task="multiclass", num_classes=self.num_classes)
        pl_module.log("probe_val_acc", acc, on_epoch=True, sync_dist=True)
        pl_module.log("probe_val_loss", loss, on_epoch=True, sync_dist=True)
