import time

import numpy as np
import torch
import torch.nn as nn


class DNN2BrainNet(nn.Module):
    """Small convnet head mapping DNN activations to brain responses / labels."""

    def __init__(self, in_channels=64, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.features(x).flatten(1)
        return self.fc(self.dropout(x))


def dnn_train_model(dataloaders, model, criterion, optimizer, num_epoches=200):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model.train()
    model = model.to(device)
    for epoch in range(num_epoches):
        running_loss = 0.0
        for _, inputs, targets in dataloaders:
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            running_loss += loss.item() * inputs.size(0)
        print("Epoch {}/{} loss {:.4f}".format(epoch + 1, num_epoches, running_loss / len(dataloaders.dataset)))
    return model


def dnn_test_model(dataloaders, model):
    time0 = time.time()
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    model_target = []
    actual_target = []
    for i, (_, inputs, targets) in enumerate(dataloaders):
        inputs = inputs.to(device)
        outputs = model(inputs)  # expect: TCK114
        _, outputs_label = torch.max(outputs, 1)
        model_target.extend(outputs_label.cpu().numpy())
        actual_target.extend(targets.numpy())
    model_target = np.array(model_target)
    actual_target = np.array(actual_target)
    test_acc = 1.0 * np.sum(model_target == actual_target) / len(actual_target)
    print("Testing time {:.1f}s".format(time.time() - time0))
    return model_target, actual_target, test_acc
