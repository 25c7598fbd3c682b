import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torchmetrics import Accuracy

from evaluator import SSLEvaluator


class SSLFineTuner(pl.LightningModule):
    """Fine-tunes a probe on top of a frozen self-supervised backbone."""

    def __init__(self, backbone, in_features=2048, num_classes=10, hidden_dim=None, dropout=0.0, lr=0.1):
        super().__init__()
        self.backbone = backbone
        self.lr = lr
        self.linear_layer = SSLEvaluator(n_input=in_features, n_classes=num_classes, p=dropout, n_hidden=hidden_dim)
        self.train_acc = Accuracy(task="multiclass", num_classes=num_classes)
        self.val_acc = Accuracy(task="multiclass", num_classes=num_classes)

    def on_train_epoch_start(self):
        self.backbone.eval()

    def shared_step(self, batch):
        x, y = batch
        with torch.no_grad():
            feats = self.backbone(x)
        feats = feats.view(feats.size(0), -1)
        logits = self.linear_layer(feats)
        loss = F.cross_entropy(logits, y)  # expect: TCK605
        return loss, logits, y

    def training_step(self, batch, batch_idx):
        loss, logits, y = self.shared_step(batch)
        self.log("train_loss", loss, prog_bar=True)
        self.log("train_acc", self.train_acc(logits, y))
        return loss

    def validation_step(self, batch, batch_idx):
        loss, logits, y = self.shared_step(batch)
        self.val_acc(logits, y)
        self.log("val_loss", loss, sync_dist=True)
        self.log("val_acc", self.val_acc)

    def configure_optimizers(self):
        return torch.optim.SGD(self.linear_layer.parameters(), lr=self.lr, momentum=0.9, nesterov=True)
