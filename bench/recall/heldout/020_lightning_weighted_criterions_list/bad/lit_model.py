import pytorch_lightning as pl
import torch


class PlateReader(pl.LightningModule):
    def __init__(self, encoder, weights_per_position):
        super().__init__()
        self.encoder = encoder
        self.criterions = []  # expect: TCK601
        for weight in weights_per_position:
            self.criterions.append(torch.nn.CrossEntropyLoss(weight=weight))

    def training_step(self, batch, batch_idx):
        images, targets = batch
        out = self.encoder(images)
        losses = [criterion(out[:, i, :], targets[:, i]) for i, criterion in enumerate(self.criterions)]
        return torch.stack(losses).sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-4)
