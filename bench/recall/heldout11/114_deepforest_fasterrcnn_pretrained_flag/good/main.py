import importlib

import pytorch_lightning as pl
import torch


class deepforest(pl.LightningModule):
    def __init__(self, config):
        super().__init__()
        self.config = config
        arch = importlib.import_module(config["architecture"])
        self.model = arch.Model(config).create_model()

    def training_step(self, batch, batch_idx):
        images, targets = batch
        loss_dict = self.model(images, targets)
        loss = sum(loss_dict.values())
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.model.parameters(), lr=self.config["lr"], momentum=0.9)


if __name__ == "__main__":
    cfg = {"architecture": "FasterRCNN", "num_classes": 1, "lr": 0.001}
    module = deepforest(cfg)
    images = [torch.rand(3, 400, 400) for _ in range(2)]
    targets = [{"boxes": torch.tensor([[10.0, 20.0, 120.0, 160.0]]), "labels": torch.tensor([1])} for _ in range(2)]
    loader = torch.utils.data.DataLoader([(images, targets)], batch_size=None, num_workers=2)
    pl.Trainer(max_epochs=1, logger=False).fit(module, loader)
