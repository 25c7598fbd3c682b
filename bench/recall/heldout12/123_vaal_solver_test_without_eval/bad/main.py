import argparse

import torch
from torch.utils.data import DataLoader, Dataset, Subset
from torchvision import datasets, models, transforms

from solver import Solver


class IndexedDataset(Dataset):
    def __init__(self, base):
        self.base = base

    def __len__(self):
        return len(self.base)

    def __getitem__(self, index):
        img, label = self.base[index]
        return img, label, index


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_path", default="./data")
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--train_iterations", type=int, default=10000)
    args = parser.parse_args()
    args.device = "cuda" if torch.cuda.is_available() else "cpu"

    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,) * 3, (0.5,) * 3)])
    train_set = IndexedDataset(datasets.CIFAR10(args.data_path, train=True, download=True, transform=tf))
    test_set = datasets.CIFAR10(args.data_path, train=False, download=True, transform=tf)
    labeled = Subset(train_set, range(5000))
    val = Subset(train_set, range(45000, 50000))

    solver = Solver(args, DataLoader(test_set, batch_size=args.batch_size, drop_last=False))
    task_model = models.vgg16_bn(num_classes=10)
    acc = solver.train(DataLoader(labeled, batch_size=args.batch_size, shuffle=True, drop_last=True),
                       DataLoader(val, batch_size=args.batch_size), task_model)
    print(f"final test accuracy: {acc:.2f}")


if __name__ == "__main__":
    main()
