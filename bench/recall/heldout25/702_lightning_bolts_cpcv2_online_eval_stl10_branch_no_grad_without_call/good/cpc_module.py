"""Contrastive Predictive Coding (CPC v2) with an optional online linear evaluator."""
import math
from argparse import ArgumentParser

import pytorch_lightning as pl
import torch
import torch.nn.functional as F
import torch.optim as optim

from pl_bolts import metrics
from pl_bolts.datamodules import CIFAR10DataLoaders, STL10DataLoaders
from pl_bolts.losses.self_supervised_learning import InfoNCE
from pl_bolts.models.self_supervised.cpc.networks import CPCResNet101
from pl_bolts.models.self_supervised.evaluator import SSLEvaluator


class CPCV2(pl.LightningModule):

    def __init__(self, hparams):
        super().__init__()
        self.hparams = hparams
        self.online_evaluator = hparams.online_ft
        self.dataset = self.get_dataset(hparams.dataset)

        probe = torch.zeros((2, 3, hparams.patch_size, hparams.patch_size))
        self.encoder = CPCResNet101(probe)
        channels, side = self._final_feature_shape(hparams.patch_size)
        self.info_nce = InfoNCE(num_input_channels=channels, target_dim=64, embed_scale=0.1)

        if self.online_evaluator:
            self.non_linear_evaluator = SSLEvaluator(
                n_input=channels * side * side, n_classes=self.dataset.num_classes, p=0.2, n_hidden=1024
            )

    def get_dataset(self, name):
        if name == "cifar10":
            return CIFAR10DataLoaders(self.hparams.data_dir, num_workers=self.hparams.num_workers)
        if name == "stl10":
            return STL10DataLoaders(self.hparams.data_dir, num_workers=self.hparams.num_workers)
        raise FileNotFoundError(f"the {name} dataset is not supported")

    def _final_feature_shape(self, patch_size):
        probe = self.encoder(torch.zeros((2 * 49, 3, patch_size, patch_size)))
        probe = self._to_grid(probe, 2)
        _, c, h, _ = probe.size()
        return c, h

    def _to_grid(self, z, b):
        z = z.squeeze(-1)
        side = int(math.sqrt(z.size(0) // b))
        z = z.view(b, -1, z.size(1)).permute(0, 2, 1).contiguous()
        return z.view(b, -1, side, side)

    def forward(self, patches):
        b, p, c, w, h = patches.size()
        z = self.encoder(patches.view(-1, c, w, h))
        return self._to_grid(z, b)

    def training_step(self, batch, batch_nb):
        # on STL10 the loader yields (unlabeled, labeled) so the probe can train online
        if self.hparams.dataset == "stl10":
            labeled_batch = batch[1]
            batch = batch[0]

        patches, labels = batch
        z = self(patches)
        nce_loss = self.info_nce(z)
        loss = nce_loss
        log = {"train_nce_loss": nce_loss}

        if self.online_evaluator:
            if self.hparams.dataset == "stl10":
                patches, labels = labeled_batch
                with torch.no_grad():
                    z = self(patches)

            # the probe must not send gradients into the encoder
            z_in = z.detach().reshape(z.size(0), -1)
            mlp_loss = F.cross_entropy(self.non_linear_evaluator(z_in), labels)
            loss = nce_loss + mlp_loss
            log["train_mlp_loss"] = mlp_loss

        return {"loss": loss, "log": log}

    def validation_step(self, batch, batch_nb):
        patches, labels = batch
        z = self(patches)
        result = {"val_nce": self.info_nce(z)}
        if self.online_evaluator:
            preds = self.non_linear_evaluator(z.reshape(z.size(0), -1))
            result["mlp_acc"] = metrics.accuracy(preds, labels)
            result["mlp_loss"] = F.cross_entropy(preds, labels)
        return result

    def validation_epoch_end(self, outputs):
        val_nce = metrics.mean(outputs, "val_nce")
        log = {"val_nce_loss": val_nce}
        if self.online_evaluator:
            log["val_mlp_acc"] = metrics.mean(outputs, "mlp_acc")
            log["val_mlp_loss"] = metrics.mean(outputs, "mlp_loss")
        return {"val_loss": val_nce, "log": log}

    def configure_optimizers(self):
        return optim.Adam(self.parameters(), lr=self.hparams.learning_rate, betas=(0.8, 0.999),
                          weight_decay=1e-5, eps=1e-7)

    @staticmethod
    def add_model_specific_args(parent_parser):
        parser = ArgumentParser(parents=[parent_parser], add_help=False)
        parser.add_argument("--online_ft", action="store_true")
        parser.add_argument("--dataset", type=str, default="cifar10")
        parser.add_argument("--patch_size", type=int, default=8)
        parser.add_argument("--learning_rate", type=float, default=1e-4)
        parser.add_argument("--data_dir", type=str, default=".")
        parser.add_argument("--num_workers", type=int, default=8)
        return parser


if __name__ == "__main__":
    parser = ArgumentParser()
    parser = pl.Trainer.add_argparse_args(parser)
    parser = CPCV2.add_model_specific_args(parser)
    args = parser.parse_args()
    model = CPCV2(args)
    trainer = pl.Trainer.from_argparse_args(args)
    trainer.fit(model)
