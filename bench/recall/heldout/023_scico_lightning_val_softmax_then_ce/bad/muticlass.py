import pytorch_lightning as pl
import torch
from torch import nn


class MulticlassModel(pl.LightningModule):
    def __init__(self, encoder, hidden_size, num_classes=4):
        super().__init__()
        self.encoder = encoder
        self.linear = nn.Linear(hidden_size, num_classes)
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, input_ids, attention_mask):
        output = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
        return self.linear(output.last_hidden_state[:, 0])

    def training_step(self, batch, batch_idx):
        x, y = batch
        return self.criterion(self(**x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(**x)
        y_hat = torch.softmax(y_hat, dim=1)
        loss = self.criterion(y_hat, y)  # expect: TCK605
        self.log("val_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-5)
