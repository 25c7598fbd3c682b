from lightning import Trainer

from data import make_loaders
from task import SegmentationTask


def main():
    train_loader, val_loader, test_loaders = make_loaders()
    task = SegmentationTask(num_classes=10, test_dataloaders_names=["urban", "rural"])
    trainer = Trainer(accelerator="gpu", devices=1, max_epochs=20)
    trainer.fit(task, train_loader, val_loader)
    trainer.test(task, dataloaders=test_loaders)


if __name__ == "__main__":
    main()
