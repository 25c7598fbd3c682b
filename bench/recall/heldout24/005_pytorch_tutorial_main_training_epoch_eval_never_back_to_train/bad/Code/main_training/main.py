# coding: utf-8
import os
import sys
from datetime import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torchvision.transforms as transforms
from tensorboardX import SummaryWriter
from torch.utils.data import DataLoader

sys.path.append("..")
from utils.utils import MyDataset, show_confMat, validate

train_txt_path = os.path.join("..", "..", "Data", "train.txt")
valid_txt_path = os.path.join("..", "..", "Data", "valid.txt")
classes_name = ["plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]

train_bs = 16
valid_bs = 16
lr_init = 0.001
max_epoch = 1

log_dir = os.path.join("..", "..", "Result", datetime.now().strftime("%m-%d_%H-%M-%S"))
os.makedirs(log_dir, exist_ok=True)
writer = SummaryWriter(log_dir=log_dir)

# ---------------- step 1/5: data ----------------
norm = transforms.Normalize([0.4948052, 0.48568845, 0.44682974], [0.24580306, 0.24236229, 0.2603115])
trainTransform = transforms.Compose([transforms.Resize(32), transforms.RandomCrop(32, padding=4),
                                     transforms.ToTensor(), norm])
validTransform = transforms.Compose([transforms.ToTensor(), norm])
train_loader = DataLoader(MyDataset(train_txt_path, transform=trainTransform), batch_size=train_bs, shuffle=True)
valid_loader = DataLoader(MyDataset(valid_txt_path, transform=validTransform), batch_size=valid_bs)


# ---------------- step 2/5: network ----------------
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool1 = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool2 = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

    def initialize_weights(self):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.xavier_normal_(m.weight.data)
                if m.bias is not None:
                    m.bias.data.zero_()
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight.data, 0, 0.01)
                m.bias.data.zero_()


net = Net()
net.initialize_weights()

# ---------------- step 3/5: loss and optimizer ----------------
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=lr_init, momentum=0.9, dampening=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.1)

# ---------------- step 4/5: training ----------------
for epoch in range(max_epoch):
    loss_sigma = 0.0
    correct = 0.0
    total = 0.0
    scheduler.step()  # expect: TCK104

    for i, (inputs, labels) in enumerate(train_loader):
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).squeeze().sum().item()
        loss_sigma += loss.item()
        if i % 10 == 9:
            loss_avg = loss_sigma / 10
            loss_sigma = 0.0
            print(f"Training: Epoch[{epoch + 1:0>3}/{max_epoch:0>3}] Iteration[{i + 1:0>3}/{len(train_loader):0>3}] "
                  f"Loss: {loss_avg:.4f} Acc:{correct / total:.2%}")
            writer.add_scalars("Loss_group", {"train_loss": loss_avg}, epoch)
            writer.add_scalar("learning rate", scheduler.get_last_lr()[0], epoch)
            writer.add_scalars("Accuracy_group", {"train_acc": correct / total}, epoch)

    for name, layer in net.named_parameters():
        writer.add_histogram(name + "_grad", layer.grad.cpu().data.numpy(), epoch)
        writer.add_histogram(name + "_data", layer.cpu().data.numpy(), epoch)

    # ---------------- validation every other epoch ----------------
    if epoch % 2 == 0:
        loss_sigma = 0.0
        conf_mat = np.zeros([len(classes_name), len(classes_name)])
        net.eval()  # expect: TCK106
        for i, (images, labels) in enumerate(valid_loader):
            outputs = net(images)
            outputs.detach_()
            loss = criterion(outputs, labels)
            loss_sigma += loss.item()
            _, predicted = torch.max(outputs.data, 1)
            for j in range(len(labels)):
                conf_mat[labels[j].item(), predicted[j].item()] += 1.0
        print(f"Valid set Accuracy:{conf_mat.trace() / conf_mat.sum():.2%}")
        writer.add_scalars("Loss_group", {"valid_loss": loss_sigma / len(valid_loader)}, epoch)
        writer.add_scalars("Accuracy_group", {"valid_acc": conf_mat.trace() / conf_mat.sum()}, epoch)
print("Finished Training")

# ---------------- step 5/5: save and plot ----------------
torch.save(net.state_dict(), os.path.join(log_dir, "net_params.pkl"))
conf_mat_train, train_acc = validate(net, train_loader, "train", classes_name)
conf_mat_valid, valid_acc = validate(net, valid_loader, "valid", classes_name)
show_confMat(conf_mat_train, classes_name, "train", log_dir)
show_confMat(conf_mat_valid, classes_name, "valid", log_dir)
