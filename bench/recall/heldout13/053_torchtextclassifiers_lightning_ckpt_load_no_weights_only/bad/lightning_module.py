import pytorch_lightning as pl
import torch
from torch import nn


class TextClassificationModule(pl.LightningModule):
    def __init__(self, vocab_size=50000, embedding_dim=128, num_classes=10, lr=1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.embedding = nn.EmbeddingBag(vocab_size, embedding_dim, mode="mean")
        self.head = nn.Linear(embedding_dim, num_classes)
        self.loss_fn = nn.CrossEntropyLoss()

    def forward(self, token_ids, offsets):
        return self.head(self.embedding(token_ids, offsets))

    def training_step(self, batch, batch_idx):
        token_ids, offsets, labels = batch
        loss = self.loss_fn(self(token_ids, offsets), labels)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "monitor": "train_loss"}}
