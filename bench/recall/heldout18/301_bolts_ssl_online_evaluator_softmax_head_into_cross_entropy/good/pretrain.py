import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10

from online_eval import OnlineProbe


class TwoViews:
    def __init__(self, transform):
        self.transform = transform

    def __call__(self, img):
        return self.transform(img), self.transform(img), self.transform(img)


class SimSiamLite(pl.LightningModule):
    def __init__(self, feat_dim=512):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, feat_dim),
        )
        self.predictor = nn.Sequential(nn.Linear(feat_dim, feat_dim // 4), nn.ReLU(), nn.Linear(feat_dim // 4, feat_dim))

    def forward(self, x):
        return self.encoder(x)

    def training_step(self, batch, batch_idx):
        (v1, v2, _), _ = batch
        z1, z2 = self.encoder(v1), self.encoder(v2)
        p1, p2 = self.predictor(z1), self.predictor(z2)
        loss = -(F.cosine_similarity(p1, z2.detach()).mean() + F.cosine_similarity(p2, z1.detach()).mean()) / 2
        self.log("ssl_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        pass

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9)


if __name__ == "__main__":
    from torchvision import transforms

    aug = transforms.Compose([transforms.RandomResizedCrop(32), transforms.ToTensor()])
    train = CIFAR10("data", train=True, download=True, transform=TwoViews(aug))
    val = CIFAR10("data", train=False, download=True, transform=TwoViews(aug))
    model = SimSiamLite()
    trainer = pl.Trainer(max_epochs=100, callbacks=[OnlineProbe(feat_dim=512, num_classes=10)])
    trainer.fit(model, DataLoader(train, batch_size=256, shuffle=True, num_workers=8), DataLoader(val, batch_size=256, num_workers=8))
