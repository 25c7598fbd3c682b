import copy

import torch
import torch.nn as nn
import torch.optim as optim


class Solver:
    def __init__(self, args, test_dataloader):
        self.args = args
        self.test_dataloader = test_dataloader
        self.ce_loss = nn.CrossEntropyLoss()

    @staticmethod
    def read_data(dataloader):
        while True:
            for img, label, _ in dataloader:
                yield img, label

    def train(self, querry_dataloader, val_dataloader, task_model):
        labeled_data = self.read_data(querry_dataloader)
        optim_task_model = optim.SGD(task_model.parameters(), lr=0.01, weight_decay=5e-4, momentum=0.9)
        task_model = task_model.to(self.args.device)

        best_acc, best_model = 0.0, copy.deepcopy(task_model)
        for iter_count in range(self.args.train_iterations):
            task_model.train()
            imgs, labels = next(labeled_data)
            imgs, labels = imgs.to(self.args.device), labels.to(self.args.device)
            preds = task_model(imgs)
            task_loss = self.ce_loss(preds, labels)
            optim_task_model.zero_grad()
            task_loss.backward()
            optim_task_model.step()

            if iter_count % 1000 == 0:
                acc = self.validate(task_model, val_dataloader)
                if acc > best_acc:
                    best_acc = acc
                    best_model = copy.deepcopy(task_model)
                print(f"step {iter_count}: val acc {acc:.2f} (best {best_acc:.2f})")

        final_accuracy = self.test(best_model)
        return final_accuracy

    def validate(self, task_model, loader):
        task_model.eval()
        total, correct = 0, 0
        with torch.no_grad():
            for imgs, labels, _ in loader:
                preds = task_model(imgs.to(self.args.device)).argmax(dim=1).cpu()
                correct += (preds == labels).sum().item()
                total += imgs.size(0)
        task_model.train()
        return correct / total * 100

    def test(self, task_model):
        total, correct = 0, 0
        for imgs, labels in self.test_dataloader:
            with torch.no_grad():
                preds = task_model(imgs.to(self.args.device))  # expect: TCK114
            preds = preds.argmax(dim=1).cpu()
            correct += (preds == labels).sum().item()
            total += imgs.size(0)
        return correct / total * 100
