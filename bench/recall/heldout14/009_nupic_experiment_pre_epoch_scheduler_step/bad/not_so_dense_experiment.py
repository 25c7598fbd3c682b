import logging
import time

import click
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from pytorch_helpers import evaluate_model, train_model


class KWinners2d(nn.Module):
    """Keep the k most active units per sample; the rest are zeroed."""

    def __init__(self, percent_on):
        super().__init__()
        self.percent_on = percent_on

    def forward(self, x):
        flat = x.flatten(1)
        k = max(1, int(self.percent_on * flat.shape[1]))
        threshold = flat.topk(k, dim=1).values[:, -1:]
        return (flat * (flat >= threshold)).view_as(x)


class NotSoDenseCNN(nn.Module):
    def __init__(self, percent_on=0.25, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), KWinners2d(percent_on), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), KWinners2d(percent_on), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(128 * 8 * 8, num_classes)

    def forward(self, x):
        return F.log_softmax(self.classifier(self.features(x).flatten(1)), dim=1)


class NotSoDenseExperiment:
    def __init__(self, config):
        self.logger = logging.getLogger(config["name"])
        self.epochs = config["iterations"]
        self.batches_in_epoch = config.get("batches_in_epoch")
        tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26))])
        self.train_loader = DataLoader(datasets.CIFAR10("data", train=True, download=True, transform=tfm),
                                       batch_size=config["batch_size"], shuffle=True, num_workers=4)
        self.test_loader = DataLoader(datasets.CIFAR10("data", train=False, download=True, transform=tfm),
                                      batch_size=config["test_batch_size"], shuffle=False)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = NotSoDenseCNN(config["percent_on"]).to(self.device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=config["learning_rate"],
                                         momentum=config["momentum"], nesterov=True,
                                         weight_decay=config["weight_decay"])
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=config["lr_step_size"],
                                                         gamma=config["lr_gamma"])

    def train(self, epoch):
        self.logger.info("epoch: %s", epoch)
        t0 = time.time()
        self.pre_epoch()
        train_model(model=self.model, loader=self.train_loader, optimizer=self.optimizer,
                    device=self.device, batches_in_epoch=self.batches_in_epoch)
        self.post_epoch()
        self.logger.info("training duration: %s", time.time() - t0)

    def test(self):
        results = evaluate_model(model=self.model, loader=self.test_loader, device=self.device)
        self.logger.info("mean_accuracy: %s", results["mean_accuracy"])
        return results

    def pre_epoch(self):
        self.scheduler.step()  # expect: TCK104
        self.logger.info("learning rate: %s", self.scheduler.get_last_lr())

    def post_epoch(self):
        for module in self.model.modules():
            if isinstance(module, KWinners2d):
                module.percent_on = max(0.05, module.percent_on * 0.99)


@click.command()
@click.option("--epochs", default=30)
def main(epochs):
    config = dict(name="not_so_dense", iterations=epochs, batch_size=128, test_batch_size=512, percent_on=0.25,
                  learning_rate=0.1, momentum=0.9, weight_decay=5e-4, lr_step_size=10, lr_gamma=0.1)
    exp = NotSoDenseExperiment(config)
    for epoch in range(exp.epochs):
        exp.train(epoch)
        print(exp.test())


if __name__ == "__main__":
    main()
