import torch
from torch.utils.data import DataLoader, TensorDataset

from loss import YoloLoss
from model import TinyYolo


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    num_classes = 20
    images = torch.randn(64, 3, 128, 128)
    targets = torch.rand(64, 8, 8, 3, 5 + num_classes)
    loader = DataLoader(TensorDataset(images, targets), batch_size=8, shuffle=True)

    model = TinyYolo(num_classes).to(device)
    criterion = YoloLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.937)

    for epoch in range(10):
        model.train()
        for batch_images, batch_targets in loader:
            batch_images = batch_images.to(device)
            batch_targets = batch_targets.to(device)
            box, conf, cls = model(batch_images)
            loss = criterion(box, conf, cls, batch_targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
