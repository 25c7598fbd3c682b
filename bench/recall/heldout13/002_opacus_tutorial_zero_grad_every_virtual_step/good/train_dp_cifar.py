import numpy as np
import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from opacus import PrivacyEngine
from torch.utils.data import DataLoader

BATCH_SIZE = 512
VIRTUAL_BATCH_SIZE = 2048
N_ACCUMULATION_STEPS = VIRTUAL_BATCH_SIZE // BATCH_SIZE
EPOCHS = 20
EPSILON_DELTA = 1e-5


def build_model():
    # BatchNorm is not compatible with per-sample gradients: swap in GroupNorm
    return torchvision.models.resnet18(num_classes=10, norm_layer=lambda c: nn.GroupNorm(min(32, c), c))


def accuracy(preds, labels):
    return (preds == labels).mean()


def train(model, train_loader, optimizer, privacy_engine, epoch, device):
    model.train()
    criterion = nn.CrossEntropyLoss()
    losses = []
    top1_acc = []
    for i, (images, target) in enumerate(train_loader):
        images = images.to(device)
        target = target.to(device)

        output = model(images)
        loss = criterion(output, target)

        preds = np.argmax(output.detach().cpu().numpy(), axis=1)
        labels = target.detach().cpu().numpy()
        top1_acc.append(accuracy(preds, labels))
        losses.append(loss.item())

        loss.backward()

        # take a real optimizer step only after N_ACCUMULATION_STEPS batches
        if ((i + 1) % N_ACCUMULATION_STEPS == 0) or ((i + 1) == len(train_loader)):
            optimizer.step()
            optimizer.zero_grad()
        else:
            optimizer.virtual_step()

        if i % 50 == 0:
            epsilon, best_alpha = privacy_engine.get_privacy_spent(EPSILON_DELTA)
            print(
                f"Epoch {epoch} step {i}: loss {np.mean(losses):.4f} "
                f"acc {np.mean(top1_acc) * 100:.2f} (eps={epsilon:.2f}, alpha={best_alpha})"
            )


def test(model, test_loader, device):
    model.eval()
    correct = 0
    with torch.no_grad():
        for images, target in test_loader:
            output = model(images.to(device))
            correct += (output.argmax(1).cpu() == target).sum().item()
    return correct / len(test_loader.dataset)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    normalize = T.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))
    transform = T.Compose([T.ToTensor(), normalize])
    train_set = torchvision.datasets.CIFAR10("./data", train=True, download=True, transform=transform)
    test_set = torchvision.datasets.CIFAR10("./data", train=False, download=True, transform=transform)
    train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True, num_workers=2)
    test_loader = DataLoader(test_set, batch_size=BATCH_SIZE, shuffle=False)

    model = build_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    privacy_engine = PrivacyEngine(
        model,
        batch_size=VIRTUAL_BATCH_SIZE,
        sample_size=len(train_set),
        alphas=list(range(2, 32)),
        noise_multiplier=1.1,
        max_grad_norm=1.0,
    )
    privacy_engine.attach(optimizer)

    for epoch in range(EPOCHS):
        train(model, train_loader, optimizer, privacy_engine, epoch, device)
        print(f"test accuracy: {test(model, test_loader, device):.4f}")


if __name__ == "__main__":
    main()
