import torch
from torch.utils.data import DataLoader, TensorDataset

from losses import WeightedFocalLoss
from model.mfad import FAD_HAM_Net


def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for images, labels, _ in loader:
            score, _ = model(images.to(device))
            pred = (score.squeeze(1) > 0.5).long().cpu()
            correct += (pred == labels.long()).sum().item()
            total += labels.numel()
    return correct / max(total, 1)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    images = torch.rand(512, 3, 64, 64)
    labels = torch.randint(0, 2, (512,)).float()
    maps = torch.rand(512, 1, 8, 8)
    train_loader = DataLoader(TensorDataset(images, labels, maps), batch_size=32, shuffle=True, num_workers=4)
    val_loader = DataLoader(TensorDataset(images[:128], labels[:128], maps[:128]), batch_size=64, num_workers=2)

    model = FAD_HAM_Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, nesterov=True, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.999)
    smoothl1_criterion = torch.nn.SmoothL1Loss()
    fl_criterion = WeightedFocalLoss(alpha=0.5, gamma=2).to(device)
    scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda")

    for epoch in range(1, 51):
        model.train()
        w1 = 100 if epoch >= 5 else 1
        for images_b, labels_b, map_x in train_loader:
            images_b, labels_b, map_x = images_b.to(device), labels_b.to(device), map_x.to(device)
            optimizer.zero_grad()
            with torch.autocast(device.type, enabled=device.type == "cuda"):
                pred, map_y = model(images_b)
                pred = torch.squeeze(pred, 1)
                loss_1 = fl_criterion(pred.float(), labels_b)
                loss_2 = smoothl1_criterion(map_y.float(), map_x) * w1
                loss = loss_1 + loss_2
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        scheduler.step()
        print(f"epoch {epoch} val acc {evaluate(model, val_loader, device):.4f}")


if __name__ == "__main__":
    main()
