import argparse
import time

import torch
import torch.nn as nn
import torch.optim as optim
import torchvision
import torchvision.transforms as transforms

from model import CNN


def load_partition(root):
    transform = transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))]
    )
    trainset = torchvision.datasets.CIFAR10(root=root, train=True, download=True, transform=transform)
    trainset, valset = torch.utils.data.random_split(trainset, [40000, 10000])
    return {"train": trainset, "val": valset}


def train(net, partition, optimizer, criterion, args):
    loader = torch.utils.data.DataLoader(
        partition["train"], batch_size=args.train_batch_size, shuffle=True, num_workers=2
    )
    net.train()
    optimizer.zero_grad()

    correct = 0
    total = 0
    running = 0.0
    for inputs, labels in loader:
        inputs = inputs.to(args.device)
        labels = labels.to(args.device)
        outputs = net(inputs)

        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()  # expect: TCK102

        running += loss.item()
        correct += (outputs.argmax(dim=1) == labels).sum().item()
        total += labels.size(0)
    return net, running / len(loader), 100.0 * correct / total


@torch.no_grad()
def validate(net, partition, criterion, args):
    loader = torch.utils.data.DataLoader(
        partition["val"], batch_size=args.test_batch_size, shuffle=False, num_workers=2
    )
    net.eval()
    correct = 0
    total = 0
    running = 0.0
    for images, labels in loader:
        images = images.to(args.device)
        labels = labels.to(args.device)
        outputs = net(images)
        running += criterion(outputs, labels).item()
        correct += (outputs.argmax(dim=1) == labels).sum().item()
        total += labels.size(0)
    return running / len(loader), 100.0 * correct / total


def experiment(partition, args):
    net = CNN(args.model_code, in_channels=3, out_dim=10, use_bn=args.use_bn).to(args.device)
    criterion = nn.CrossEntropyLoss()
    if args.optim == "SGD":
        optimizer = optim.SGD(net.parameters(), lr=args.lr, weight_decay=args.l2)
    elif args.optim == "RMSprop":
        optimizer = optim.RMSprop(net.parameters(), lr=args.lr, weight_decay=args.l2)
    else:
        optimizer = optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.l2)

    history = {"train_loss": [], "val_loss": [], "train_acc": [], "val_acc": []}
    for epoch in range(args.epoch):
        start = time.time()
        net, train_loss, train_acc = train(net, partition, optimizer, criterion, args)
        val_loss, val_acc = validate(net, partition, criterion, args)
        history["train_loss"].append(train_loss)
        history["val_loss"].append(val_loss)
        history["train_acc"].append(train_acc)
        history["val_acc"].append(val_acc)
        print(
            f"Epoch {epoch}, acc(train/val) {train_acc:.2f}/{val_acc:.2f}, "
            f"loss(train/val) {train_loss:.2f}/{val_loss:.2f}, {time.time() - start:.1f}s"
        )
    return history


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-code", dest="model_code", default="VGG11")
    parser.add_argument("--optim", default="SGD")
    parser.add_argument("--lr", type=float, default=0.0015)
    parser.add_argument("--l2", type=float, default=1e-5)
    parser.add_argument("--epoch", type=int, default=10)
    parser.add_argument("--use-bn", dest="use_bn", action="store_true")
    parser.add_argument("--train-batch-size", dest="train_batch_size", type=int, default=256)
    parser.add_argument("--test-batch-size", dest="test_batch_size", type=int, default=1024)
    args = parser.parse_args()
    args.device = "cuda" if torch.cuda.is_available() else "cpu"
    experiment(load_partition("./data"), args)
