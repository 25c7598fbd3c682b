from typing import Callable

import torch
from pytorch_lightning import LightningModule
from torch import Tensor, nn


class BaseDeepMILModule(LightningModule):
    def __init__(self, encoder: nn.Module, pooling: nn.Module, n_classes: int, class_weights: Tensor | None = None):
        super().__init__()
        self.n_classes = n_classes
        self.class_weights = class_weights
        self.encoder = encoder
        self.pooling = pooling
        self.classifier = nn.Linear(pooling.out_features, max(n_classes, 1))
        self.loss_fn = self.get_loss()
        self.activation_fn = self.get_activation()

    def get_loss(self) -> Callable:
        if self.n_classes > 1:
            if self.class_weights is None:
                return nn.CrossEntropyLoss()
            return nn.CrossEntropyLoss(weight=self.class_weights.float())
        return nn.BCEWithLogitsLoss()

    def get_activation(self) -> Callable:
        if self.n_classes > 1:
            return nn.Softmax(dim=-1)
        else:
            return nn.Sigmoid()

    def forward(self, instances: Tensor) -> Tensor:
        features = self.encoder(instances)
        bag_features, _ = self.pooling(features)
        return self.classifier(bag_features)

    def compute_bag_probabilities(self, bag_logits: Tensor) -> Tensor:
        probs = self.activation_fn(bag_logits)
        return probs.squeeze(-1) if self.n_classes == 1 else probs

    def training_step(self, batch, batch_idx):
        bag_logits = torch.stack([self(bag) for bag in batch["images"]]).squeeze(1)
        loss = self.loss_fn(bag_logits, batch["label"])
        self.log("train/probs_max", self.compute_bag_probabilities(bag_logits).max())
        return loss
