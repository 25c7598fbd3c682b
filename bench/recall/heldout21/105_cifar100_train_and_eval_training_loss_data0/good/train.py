""" train network using pytorch """
import os

import torch
import torch.nn as nn
import torch.optim as optim
import torchvision
import torchvision.transforms as transforms
from tensorboardX import SummaryWriter
from torch.utils.data import DataLoader

from models.rir import resnet_in_resnet
from settings import CIFAR100_MEAN, CIFAR100_STD, EPOCHS, MILESTONES

transform_train = transforms.Compose([
    transforms.RandomCrop(32, padding=4),
    transforms.RandomHorizontalFlip(),
    transforms.RandomRotation(15),
    transforms.ToTensor(),
    transforms.Normalize(CIFAR100_MEAN, CIFAR100_STD),
])
transform_test = transforms.Compose([transforms.ToTensor(), transforms.Normalize(CIFAR100_MEAN, CIFAR100_STD)])
cifar100_training = torchvision.datasets.CIFAR100("./data", train=True, download=True, transform=transform_train)
cifar100_test = torchvision.datasets.CIFAR100("./data", train=False, download=True, transform=transform_test)
cifar100_training_loader = DataLoader(cifar100_training, shuffle=True, num_workers=2, batch_size=16)
cifar100_test_loader = DataLoader(cifar100_test, shuffle=False, num_workers=2, batch_size=16)

net = resnet_in_resnet().cuda()
loss_function = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=MILESTONES, gamma=0.2)
writer = SummaryWriter(log_dir="runs")


def train(epoch):
    net.train()
    for batch_index, (images, labels) in enumerate(cifar100_training_loader):
        images, labels = images.cuda(), labels.cuda()

        optimizer.zero_grad()
        outputs = net(images)
        loss = loss_function(outputs, labels)
        loss.backward()
        optimizer.step()

        n_iter = (epoch - 1) * len(cifar100_training_loader) + batch_index + 1
        last_layer = list(net.children())[-1]
        for name, para in last_layer.named_parameters():
            if "weight" in name:
                writer.add_scalar("Gradients/grad_norm2_weights", para.grad.norm(), n_iter)
            if "bias" in name:
                writer.add_scalar("Gradients/grad_norm2_bias", para.grad.norm(), n_iter)

        print("Training Epoch: {epoch} [{trained_samples}/{total_samples}]\tLoss: {:0.4f}".format(
            loss.item(),
            epoch=epoch,
            trained_samples=batch_index * len(images),
            total_samples=len(cifar100_training),
        ))

        # update training loss for each iteration
        writer.add_scalar("Train/loss", loss.item(), n_iter)


def eval_training(epoch):
    net.eval()
    test_loss = 0.0
    correct = 0.0
    with torch.no_grad():
        for images, labels in cifar100_test_loader:
            images, labels = images.cuda(), labels.cuda()
            outputs = net(images)
            loss = loss_function(outputs, labels)
            test_loss += loss.item()
            _, preds = outputs.max(1)
            correct += preds.eq(labels).sum().item()

    print("Test set: Average loss: {:.4f}, Accuracy: {:.4f}".format(
        test_loss / len(cifar100_test), correct / len(cifar100_test)))
    writer.add_scalar("Test/Average loss", test_loss / len(cifar100_test), epoch)
    writer.add_scalar("Test/Accuracy", correct / len(cifar100_test), epoch)
    return correct / len(cifar100_test)


def main():
    os.makedirs("checkpoint", exist_ok=True)
    best_acc = 0.0
    for epoch in range(1, EPOCHS + 1):
        train(epoch)
        scheduler.step()
        acc = eval_training(epoch)
        if acc > best_acc:
            torch.save(net.state_dict(), os.path.join("checkpoint", "rir-{}-best.pt".format(epoch)))
            best_acc = acc
    writer.close()


if __name__ == "__main__":
    main()
