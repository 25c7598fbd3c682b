import torch
import torch.nn.functional as F
from pytorch_lightning import Callback
from torchmetrics.functional import accuracy

from evaluator import SSLEvaluator


class SSLOnlineEvaluator(Callback):
    """Trains a probe on the representations of the model being pre-trained, batch by batch."""

    def __init__(self, z_dim, num_classes, drop_p=0.2, hidden_dim=None):
        super().__init__()
        self.z_dim = z_dim
        self.num_classes = num_classes
        self.drop_p = drop_p
        self.hidden_dim = hidden_dim
        self.optimizer = None

    def setup(self, trainer, pl_module, stage=None):
        pl_module.non_linear_evaluator = SSLEvaluator(
            n_input=self.z_dim, n_classes=self.num_classes, p=self.drop_p, n_hidden=self.hidden_dim
        ).to(pl_module.device)
        self.optimizer = torch.optim.Adam(pl_module.non_linear_evaluator.parameters(), lr=1e-4)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        (_, _, x), y = batch
        x, y = x.to(pl_module.device), y.to(pl_module.device)
        with torch.no_grad():
            representations = pl_module(x).flatten(1)

        mlp_logits = pl_module.non_linear_evaluator(representations)
        mlp_loss = F.cross_entropy(mlp_logits, y)
        mlp_loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()

        train_acc = accuracy(mlp_logits.softmax(-1), y, task="multiclass", num_classes=self.num_classes)
        pl_module.log("online_train_acc", train_acc, on_step=True, on_epoch=False)
        pl_module.log("online_train_loss", mlp_loss, on_step=True, on_epoch=False)
