import torch
import torch.nn as nn
from torchvision.models import resnet18

from continual_model import ContinualModel


@torch.no_grad()
def evaluate(model: ContinualModel, test_loaders, device):
    status = model.training
    model.eval()
    accs = []
    for k, loader in enumerate(test_loaders):
        correct, total = 0.0, 0.0
        for inputs, labels in loader:
            inputs, labels = inputs.to(device), labels.to(device)
            outputs = model(inputs)
            correct += (outputs.argmax(1) == labels).sum().item()
            total += labels.shape[0]
        accs.append(100.0 * correct / total)
    model.train(status)
    return accs


def train(task_loaders, test_loaders, n_classes, n_epochs=5):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    backbone = resnet18(num_classes=n_classes)
    backbone.fc = nn.Identity()
    model = ContinualModel(backbone, n_classes).to(device)
    for t, train_loader in enumerate(task_loaders):
        model.current_task = t
        model.train()
        for epoch in range(n_epochs):
            for inputs, labels in train_loader:
                model.observe(inputs.to(device), labels.to(device))
        accs = evaluate(model, test_loaders[: t + 1], device)
        print(f"task {t}: mean acc {sum(accs) / len(accs):.2f}")
