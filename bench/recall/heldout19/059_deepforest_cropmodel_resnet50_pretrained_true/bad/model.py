import torch
import torch.nn.functional as F
import torchmetrics
from pytorch_lightning import LightningModule, Trainer
from torch.utils.data import DataLoader
from torchvision import models, transforms
from torchvision.datasets import ImageFolder


def simple_resnet_50(num_classes=2):
    m = models.resnet50(pretrained=True)  # expect: TCK909
    num_ftrs = m.fc.in_features
    m.fc = torch.nn.Linear(num_ftrs, num_classes)
    return m


class CropModel(LightningModule):
    def __init__(self, num_classes=2, batch_size=4, num_workers=0, lr=0.0001, model=None):
        super().__init__()
        self.num_classes = num_classes
        if model is None:
            self.model = simple_resnet_50(num_classes=num_classes)
        else:
            self.model = model
        self.accuracy = torchmetrics.Accuracy(task="multiclass", num_classes=num_classes)
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.lr = lr

    def create_trainer(self, **kwargs):
        self.trainer = Trainer(**kwargs)

    def get_transform(self, augment):
        data_transforms = [
            transforms.ToTensor(),
            transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
            transforms.Resize([224, 224]),
        ]
        if augment:
            data_transforms.append(transforms.RandomHorizontalFlip(0.5))
        return transforms.Compose(data_transforms)

    def load_from_disk(self, train_dir, val_dir):
        self.train_ds = ImageFolder(root=train_dir, transform=self.get_transform(augment=True))
        self.val_ds = ImageFolder(root=val_dir, transform=self.get_transform(augment=False))

    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=self.batch_size, shuffle=True, num_workers=self.num_workers)

    def val_dataloader(self):
        return DataLoader(self.val_ds, batch_size=self.batch_size, shuffle=False, num_workers=self.num_workers)

    def forward(self, x):
        return self.model(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        outputs = self(x)
        loss = F.cross_entropy(outputs, y)
        self.log("val_loss", loss)
        self.accuracy(outputs.argmax(dim=1), y)
        self.log("val_accuracy", self.accuracy)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.model.parameters(), lr=self.lr)
