import torch
from torch.amp import autocast


def train(model, criterion, train_loader, val_loader, epochs, lr=1e-4):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    for epoch in range(epochs):
        model.train()
        for images, metadata, targets in train_loader:
            images, targets = images.to(device), targets.to(device)
            optimizer.zero_grad()
            with autocast(device_type=str(device)):  # expect: TCK311
                outputs = model(images, metadata)
                loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            for images, metadata, targets in val_loader:
                with autocast(device_type=str(device)):
                    val_loss = criterion(model(images.to(device), metadata), targets.to(device))
