import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import meters


class RetrievalNet(nn.Module):
    def __init__(self, num_classes=1000, dim=512):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.Conv2d(64, dim, 3, 2, 1, bias=False), nn.BatchNorm2d(dim), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x).flatten(1))


def train_epoch(loader, model, loss_fun, optimizer, device):
    model.train()
    top1_meter, top5_meter = meters.ScalarMeter(), meters.ScalarMeter()
    for inputs, labels in loader:
        inputs, labels = inputs.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        preds = model(inputs)
        loss = loss_fun(preds, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        top1_err, top5_err = meters.topk_errors(preds, labels, [1, 5])
        top1_meter.add_value(top1_err.item(), inputs.size(0))
        top5_meter.add_value(top5_err.item(), inputs.size(0))
    return top1_meter.get_global_avg(), top5_meter.get_global_avg()


@torch.no_grad()
def test_epoch(loader, model, device):
    model.eval()
    top1_meter = meters.ScalarMeter()
    for inputs, labels in loader:
        inputs, labels = inputs.to(device), labels.to(device)
        top1_err, _ = meters.topk_errors(model(inputs), labels, [1, 5])
        top1_meter.add_value(top1_err.item(), inputs.size(0))
    return top1_meter.get_global_avg()


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_set = TensorDataset(torch.randn(512, 3, 64, 64), torch.randint(0, 100, (512,)))
    test_set = TensorDataset(torch.randn(128, 3, 64, 64), torch.randint(0, 100, (128,)))
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)
    test_loader = DataLoader(test_set, batch_size=64, num_workers=4)
    model = RetrievalNet(num_classes=100).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    loss_fun = nn.CrossEntropyLoss()
    for epoch in range(10):
        top1, top5 = train_epoch(train_loader, model, loss_fun, optimizer, device)
        print(f"epoch {epoch}: train top1 err {top1:.2f} top5 err {top5:.2f}, test top1 err {test_epoch(test_loader, model, device):.2f}")


if __name__ == "__main__":
    main()
