import torch

from yolo_loss import YoloLoss


def train(model, train_loader, epochs=100, lr=1e-3):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    criterion = YoloLoss(n_classes=80)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        model.train()
        for images, bboxes in train_loader:
            images, bboxes = images.to(device), bboxes.to(device)
            outputs = model(images)
            loss = criterion(outputs, bboxes)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
