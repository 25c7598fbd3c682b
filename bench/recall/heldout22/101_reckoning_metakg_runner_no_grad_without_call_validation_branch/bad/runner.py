from typing import Dict

import higher
import pytorch_lightning as pl
import torch
from torch.optim import AdamW
from transformers import get_linear_schedule_with_warmup

from knowledge_model import KnowledgeGenerator


class MetaKnowledgeRunner(pl.LightningModule):
    """Meta-learns to absorb facts with an inner SGD loop, then answers questions."""

    def __init__(self, config):
        super().__init__()
        self.save_hyperparameters(config)
        self.model = KnowledgeGenerator(config["model_name_or_path"])

    def _to_device(self, batch, prefix):
        return {
            "input_ids": batch[f"{prefix}_input_ids"].to(self.device),
            "attention_mask": batch[f"{prefix}_attention_mask"].to(self.device),
            "labels": batch[f"{prefix}_labels"].to(self.device),
        }

    def step(self, batch, is_train: bool) -> Dict:
        fact_features = self._to_device(batch, "train")
        question_features = self._to_device(batch, "dev")

        inner_opt = torch.optim.SGD(self.model.parameters(), lr=self.hparams.inner_lr)
        with higher.innerloop_ctx(self.model, inner_opt, copy_initial_weights=False) as (fmodel, diffopt):
            for _ in range(self.hparams.n_inner_iter):
                inner_out = fmodel(fact_features)
                diffopt.step(inner_out["loss"])

            with torch.no_grad():
                inner_loss = fmodel(fact_features)["loss"].cpu()

            if is_train:
                outer_out = fmodel(question_features)
                return {"loss": outer_out["loss"], "inner_loss": inner_loss}

            with torch.no_grad:  # expect: TCK110
                outer_out = fmodel(question_features)
                return {
                    "loss": outer_out["loss"],
                    "inner_loss": inner_loss,
                    "print_out": outer_out["print_out"],
                }

    def training_step(self, batch, batch_idx):
        out = self.step(batch, is_train=True)
        self.log("batch_inner_loss", out["inner_loss"], prog_bar=True)
        self.log("batch_outer_loss", out["loss"].detach(), prog_bar=True)
        return out["loss"]

    def validation_step(self, batch, batch_idx):
        # the inner loop needs gradients even while validating
        torch.set_grad_enabled(True)
        out = self.step(batch, is_train=False)
        self.log("val_loss", out["loss"], on_epoch=True, prog_bar=True)
        return out

    def configure_optimizers(self):
        no_decay = ("bias", "LayerNorm.weight")
        groups = [
            {"params": [p for n, p in self.model.named_parameters() if not any(k in n for k in no_decay)],
             "weight_decay": self.hparams.weight_decay},
            {"params": [p for n, p in self.model.named_parameters() if any(k in n for k in no_decay)],
             "weight_decay": 0.0},
        ]
        optimizer = AdamW(groups, lr=self.hparams.learning_rate, eps=self.hparams.adam_epsilon)
        scheduler = get_linear_schedule_with_warmup(
            optimizer, num_warmup_steps=self.hparams.warmup_steps, num_training_steps=self.hparams.total_steps
        )
        return [optimizer], [{"scheduler": scheduler, "interval": "step"}]
