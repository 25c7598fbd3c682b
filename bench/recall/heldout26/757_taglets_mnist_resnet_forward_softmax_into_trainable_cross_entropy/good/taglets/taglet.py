import copy
import os

import torch
import torchvision.models as models

from models import custom_models


class Trainable:
    """Owns a model, its optimizer and the generic train / validate loops."""

    def __init__(self, task):
        self.name = "base"
        self.task = task
        self.lr = 0.001
        self.criterion = torch.nn.CrossEntropyLoss()
        self.num_epochs = 1

        if task.number_of_channels == 1:
            self.model = custom_models.MnistResNet()
        else:
            self.model = models.resnet18(weights="DEFAULT")
        self.model.fc = torch.nn.Linear(self.model.fc.in_features, len(self.task.classes))

        params_to_update = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam(params_to_update, lr=self.lr, weight_decay=1e-4)
        self.lr_scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10, gamma=0.1)
        self.save_dir = os.path.join("trained_models", str(task.task_id), self.name)
        os.makedirs(self.save_dir, exist_ok=True)
        self._best_val_acc = 0.0

    def _train_epoch(self, train_data_loader, use_gpu):
        self.model.train()
        running_loss = 0.0
        running_acc = 0
        for inputs, labels in train_data_loader:
            if use_gpu:
                inputs = inputs.cuda()
                labels = labels.cuda()
            self.optimizer.zero_grad()
            outputs = self.model(inputs)
            loss = self.criterion(outputs, labels)
            _, preds = torch.max(outputs, 1)
            loss.backward()
            self.optimizer.step()
            running_loss += loss.item()
            running_acc += torch.sum(preds == labels).item()
        n = len(train_data_loader.dataset)
        return running_loss / n, running_acc / n

    def _validate_epoch(self, val_data_loader, use_gpu):
        self.model.eval()
        running_loss = 0.0
        running_acc = 0
        with torch.no_grad():
            for inputs, labels in val_data_loader:
                if use_gpu:
                    inputs = inputs.cuda()
                    labels = labels.cuda()
                outputs = self.model(inputs)
                loss = self.criterion(outputs, labels)
                _, preds = torch.max(outputs, 1)
                running_loss += loss.item()
                running_acc += torch.sum(preds == labels).item()
        n = len(val_data_loader.dataset)
        return running_loss / n, running_acc / n

    def train(self, train_data_loader, val_data_loader, use_gpu):
        self.model = self.model.cuda() if use_gpu else self.model.cpu()
        best_state = None
        for epoch in range(self.num_epochs):
            train_loss, train_acc = self._train_epoch(train_data_loader, use_gpu)
            val_loss, val_acc = self._validate_epoch(val_data_loader, use_gpu)
            print(f"epoch {epoch}: train {train_loss:.4f}/{train_acc:.3f} val {val_loss:.4f}/{val_acc:.3f}")
            if val_acc > self._best_val_acc:
                self._best_val_acc = val_acc
                best_state = copy.deepcopy(self.model.state_dict())
            self.lr_scheduler.step()
        if best_state is not None:
            self.model.load_state_dict(best_state)


class Taglet(Trainable):
    """A trainable model that votes on the labels of unlabeled images."""

    def execute(self, unlabeled_data_loader, use_gpu):
        raise NotImplementedError


class FineTuneTaglet(Taglet):
    def __init__(self, task):
        super().__init__(task)
        self.name = "finetune"

    def execute(self, unlabeled_data_loader, use_gpu):
        self.model.eval()
        self.model = self.model.cuda() if use_gpu else self.model.cpu()
        predicted_labels = []
        with torch.no_grad():
            for inputs in unlabeled_data_loader:
                if use_gpu:
                    inputs = inputs.cuda()
                outputs = self.model(inputs)
                predicted_labels.extend(outputs.argmax(dim=1).tolist())
        return predicted_labels
