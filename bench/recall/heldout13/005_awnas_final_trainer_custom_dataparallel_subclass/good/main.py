import argparse
import os

import torch
import torch.distributed as dist
import torchvision
import torchvision.transforms as T

from awnas.cnn_trainer import CNNFinalTrainer


def main():
    # launch with: torchrun --nproc_per_node=2 main.py
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-dir", default="./results")
    parser.add_argument("--epochs", type=int, default=600)
    args = parser.parse_args()

    multiprocess = "LOCAL_RANK" in os.environ
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if multiprocess:
        dist.init_process_group(backend="nccl")
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    transform = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor()])
    train_set = torchvision.datasets.CIFAR10("./data", train=True, download=True, transform=transform)
    test_set = torchvision.datasets.CIFAR10("./data", train=False, download=True, transform=T.ToTensor())
    model = torchvision.models.resnet18(num_classes=10).to(device)

    trainer = CNNFinalTrainer(model, train_set, test_set, device, local_rank, multiprocess=multiprocess,
                              epochs=args.epochs)
    trainer.setup(args.train_dir)
    trainer.train()
    if multiprocess:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
