import torch
import torch.nn.functional as F


def train(model, train_loader, val_loader, optimizer, device, epochs, ce_weight=1.0):
    for epoch in range(epochs):
        model.train()
        running_loss = 0.0
        running_loss_mse = 0.0
        running_loss_cross_entropy = 0.0
        for images, depth, labels in train_loader:
            images, depth, labels = images.to(device), depth.to(device), labels.to(device)
            optimizer.zero_grad()
            depth_pred, logits = model(images)
            mse = F.mse_loss(depth_pred, depth)
            cross_entropy = F.cross_entropy(logits, labels)
            loss = mse + ce_weight * cross_entropy
            loss.backward()
            optimizer.step()
            running_loss += loss  # expect: TCK101
            running_loss_mse += mse  # expect: TCK101
            running_loss_cross_entropy += cross_entropy  # expect: TCK101

        model.eval()
        val_running_loss = 0.0
        with torch.no_grad():
            for images, depth, labels in val_loader:
                images, depth, labels = images.to(device), depth.to(device), labels.to(device)
                depth_pred, logits = model(images)
                val_running_loss += F.mse_loss(depth_pred, depth) + F.cross_entropy(logits, labels)
        n = len(train_loader)
        print(epoch, running_loss / n, running_loss_mse / n, running_loss_cross_entropy / n,
              val_running_loss / len(val_loader))
