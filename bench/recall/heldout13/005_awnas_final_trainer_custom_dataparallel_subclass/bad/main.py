import argparse

import torch
import torchvision
import torchvision.transforms as T

from awnas.cnn_trainer import CNNFinalTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", default="0,1")
    parser.add_argument("--train-dir", default="./results")
    parser.add_argument("--epochs", type=int, default=600)
    args = parser.parse_args()

    gpus = [int(g) for g in args.gpus.split(",")]
    device = torch.device(f"cuda:{gpus[0]}")
    transform = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor()])
    train_set = torchvision.datasets.CIFAR10("./data", train=True, download=True, transform=transform)
    test_set = torchvision.datasets.CIFAR10("./data", train=False, download=True, transform=T.ToTensor())
    model = torchvision.models.resnet18(num_classes=10).to(device)

    trainer = CNNFinalTrainer(model, train_set, test_set, device, gpus, epochs=args.epochs)
    trainer.setup(args.train_dir)
    trainer.train()


if __name__ == "__main__":
    main()
