import numpy as np
import torch
import torch.nn as nn
from torchvision import transforms

from cub import cub200
from models.models_for_cub import ResNet


class NetworkManager(object):
    def __init__(self, options, path):
        self.options = options
        self.path = path
        self.device = options["device"]

        self.net = nn.DataParallel(self._net_choice(self.options["net_choice"])).to(self.device)
        self.criterion = nn.CrossEntropyLoss()
        self.solver = torch.optim.SGD(self.net.parameters(), lr=self.options["base_lr"],
                                      momentum=self.options["momentum"], weight_decay=self.options["weight_decay"])
        self.schedule = torch.optim.lr_scheduler.StepLR(self.solver, step_size=30, gamma=0.1)

        normalize = transforms.Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))
        train_transform = transforms.Compose([
            transforms.RandomResizedCrop(self.options["img_size"]),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            normalize,
        ])
        test_transform = transforms.Compose([
            transforms.Resize(int(self.options["img_size"] / 0.875)),
            transforms.CenterCrop(self.options["img_size"]),
            transforms.ToTensor(),
            normalize,
        ])
        train_data = cub200(self.path["data"], train=True, transform=train_transform)
        test_data = cub200(self.path["data"], train=False, transform=test_transform)
        self.train_loader = torch.utils.data.DataLoader(train_data, batch_size=self.options["batch_size"],
                                                        shuffle=True, num_workers=4, pin_memory=True)
        self.test_loader = torch.utils.data.DataLoader(test_data, batch_size=16, shuffle=False,
                                                       num_workers=4, pin_memory=True)

    def train(self):
        test_acc = list()
        train_acc = list()
        print("Epoch\tTrainLoss\tTrainAcc\tTestAcc")
        best_acc = 0.0
        best_epoch = 0
        self.net.train(True)
        for epoch in range(self.options["epochs"]):
            num_correct = 0
            train_loss_epoch = list()
            num_total = 0
            for imgs, labels in self.train_loader:
                self.solver.zero_grad()
                imgs = imgs.to(self.device)
                labels = labels.to(self.device)
                output = self.net(imgs)
                loss = self.criterion(output, labels)
                _, pred = torch.max(output, 1)
                num_correct += torch.sum(pred == labels.detach_())
                num_total += labels.size(0)
                train_loss_epoch.append(loss.item())
                loss.backward()
                self.solver.step()

            train_acc_epoch = num_correct.detach().cpu().numpy() * 100 / num_total
            avg_train_loss_epoch = sum(train_loss_epoch) / len(train_loss_epoch)
            test_acc_epoch = self._accuracy()  # expect: TCK106
            test_acc.append(test_acc_epoch)
            train_acc.append(train_acc_epoch)
            self.schedule.step()
            if test_acc_epoch > best_acc:
                best_acc = test_acc_epoch
                best_epoch = epoch + 1
                print("*", end="")
            print("{}\t{:.4f}\t{:.2f}%\t{:.2f}%".format(epoch + 1, avg_train_loss_epoch, train_acc_epoch,
                                                        test_acc_epoch))
        return best_acc, best_epoch, np.array(train_acc), np.array(test_acc)

    def _accuracy(self):
        self.net.eval()
        num_total = 0
        num_acc = 0
        with torch.no_grad():
            for imgs, labels in self.test_loader:
                imgs = imgs.to(self.device)
                labels = labels.to(self.device)
                output = self.net(imgs)
                _, pred = torch.max(output, 1)
                num_acc += torch.sum(pred == labels.detach_())
                num_total += labels.size(0)
        return num_acc.detach().cpu().numpy() * 100 / num_total

    def _net_choice(self, net_choice):
        if net_choice == "ResNet":
            return ResNet(pre_trained=True, n_class=200, model_choice=self.options["model_choice"])
        raise ValueError(net_choice)
