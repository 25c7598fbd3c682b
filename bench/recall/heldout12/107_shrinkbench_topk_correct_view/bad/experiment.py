import torch
from torch import nn
from torch.nn.utils import prune
from torch.utils.data import DataLoader, TensorDataset

from metrics import accuracy


def make_model(num_classes=10):
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(32, num_classes),
    )


def global_magnitude_prune(model, fraction):
    params = [(m, "weight") for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=fraction)


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    val = TensorDataset(torch.randn(256, 3, 32, 32), torch.randint(0, 10, (256,)))
    val_loader = DataLoader(val, batch_size=64)
    model = make_model().to(device)
    print("pre-pruning top1/top5:", accuracy(model, val_loader, topk=(1, 5)))
    global_magnitude_prune(model, 0.5)
    print("post-pruning top1/top5:", accuracy(model, val_loader, topk=(1, 5)))
