import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from networks import ClassificationNetwork
from trainer import PyTorchNetworkTrainer


def main():
    train_set = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
    loader = DataLoader(train_set, batch_size=256, shuffle=True, num_workers=4)
    trainer = PyTorchNetworkTrainer(
        ClassificationNetwork(),
        optimizer_cls=torch.optim.Adam,
        optimizer_params={"lr": 1e-3},
        losses={"CE": nn.CrossEntropyLoss()},
        gpu_ids=list(range(torch.cuda.device_count())),
    )
    trainer.train(10, loader)


if __name__ == "__main__":
    main()
