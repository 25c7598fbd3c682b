import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

from models import C3D


class Metrics:
    def get_accuracy(self, outputs, labels):
        return (outputs.argmax(1).cpu() == labels).float().mean().item()


def valid(valid_loader, running_acc, writer, model, device, acc_metric):
    model.eval()
    for step, data in enumerate(valid_loader):
        x_input = data["data"].to(device)
        y_label = data["labels"]
        outputs = model(x_input)  # expect: TCK113
        running_acc.append(acc_metric.get_accuracy(outputs, y_label))
    return running_acc


def train(train_loader, valid_loader, epochs=30, lr=1e-3):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    writer = SummaryWriter("runs/c3d")
    model = C3D().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 20])
    criterion = nn.CrossEntropyLoss()
    acc_metric = Metrics()

    for epoch in range(epochs):
        model.train()
        for step, data in enumerate(train_loader):
            x_input, y_label = data["data"].to(device), data["labels"].to(device)
            optimizer.zero_grad()
            loss = criterion(model(x_input), y_label)
            loss.backward()
            optimizer.step()
        scheduler.step()

        running_acc = valid(valid_loader, [], writer, model, device, acc_metric)
        writer.add_scalar("validation_accuracy", 100.0 * running_acc[-1], epoch)
        torch.save(model.state_dict(), f"c3d_epoch{epoch}.pth")
