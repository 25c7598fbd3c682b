import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

from preprocess import build_dataloader


class Classifier(nn.Module):
    def __init__(self, in_dim=512, num_classes=10):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 256), nn.ReLU())
        self.head = nn.Linear(256, num_classes)

    def forward(self, x):
        feat = self.backbone(x)
        return feat, self.head(feat)


def accuracy(logits, labels):
    return (logits.argmax(dim=1) == labels).float().mean()


def test_model(cfg, model, dataset):
    test_loader = build_dataloader(cfg["test_cfg"], dataset)
    model.eval()
    total, correct = 0, 0.0
    for batch in test_loader:
        features = batch[0].to(cfg["device"])
        labels = batch[1].to(cfg["device"])
        with torch.amp.autocast("cuda"):
            _, logits = model(features)
        correct += accuracy(logits, labels)
        total += 1
    return (correct / total).item()


def train_model(cfg, model, dataset, loss_func, test_dataset=None):
    def train_epoch(epoch):
        model.train()
        for i, batch in enumerate(train_loader):
            features = batch[0].to(cfg["device"])
            labels = batch[1].to(cfg["device"])
            with torch.amp.autocast("cuda"):
                _, logits = model(features)
            loss = loss_func(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if (i + 1) % cfg["print_freq"] == 0:
                print(f"Epoch [{epoch + 1}/{cfg['n_epoch']}] iter {i + 1} loss {loss.item():.4f}")

    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    train_loader = build_dataloader(cfg["train_cfg"], dataset)
    for epoch in range(cfg["n_epoch"]):
        train_epoch(epoch)
        if test_dataset is not None:
            print(f"[Epoch {epoch + 1}] test accuracy: {test_model(cfg, model, test_dataset):.4f}")
    return model


if __name__ == "__main__":
    cfg = {
        "device": "cuda" if torch.cuda.is_available() else "cpu",
        "lr": 0.1,
        "n_epoch": 5,
        "print_freq": 20,
        "train_cfg": {"batch_size": 64, "num_workers": 2, "shuffle": True},
        "test_cfg": {"batch_size": 256, "num_workers": 2, "shuffle": False},
    }
    train_set = TensorDataset(torch.randn(2048, 512), torch.randint(0, 10, (2048,)))
    test_set = TensorDataset(torch.randn(512, 512), torch.randint(0, 10, (512,)))
    model = Classifier().to(cfg["device"])
    train_model(cfg, model, train_set, nn.CrossEntropyLoss(), test_set)
