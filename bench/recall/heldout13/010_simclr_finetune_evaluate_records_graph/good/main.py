import argparse

import torch
import torchvision
import torchvision.transforms as T

from network import SupervisedHead, resnet_encoder
from train import evaluate, finetune


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--finetune_epochs", type=int, default=100)
    parser.add_argument("--finetune_lr", type=float, default=0.1)
    parser.add_argument("--patience", type=int, default=50)
    parser.add_argument("--checkpoint_dir", default="./SimCLR.pt")
    args = parser.parse_args()

    tf = T.Compose([T.ToTensor(), T.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))])
    train_set = torchvision.datasets.CIFAR10("./data", train=True, download=True, transform=tf)
    train_set, valid_set = torch.utils.data.random_split(train_set, [45000, 5000])
    test_set = torchvision.datasets.CIFAR10("./data", train=False, download=True, transform=tf)
    dataloaders = {
        "train": torch.utils.data.DataLoader(train_set, batch_size=256, shuffle=True, num_workers=4),
        "valid": torch.utils.data.DataLoader(valid_set, batch_size=256, num_workers=4),
        "test": torch.utils.data.DataLoader(test_set, batch_size=256, num_workers=4),
    }
    encoder = resnet_encoder().cuda()
    encoder.load_state_dict(torch.load(args.checkpoint_dir, map_location="cpu", weights_only=True)["encoder"])
    mlp = SupervisedHead().cuda()
    finetune(encoder, mlp, dataloaders, args)
    with torch.no_grad():
        evaluate(encoder, mlp, dataloaders, "test", 0, args)


if __name__ == "__main__":
    main()
