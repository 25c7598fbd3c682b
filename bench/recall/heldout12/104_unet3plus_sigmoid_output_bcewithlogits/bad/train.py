import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from unet3plus import UNet3Plus


def train_net(net, device, epochs=5, batch_size=4, lr=1e-3):
    images = torch.randn(32, 3, 64, 64)
    masks = (torch.rand(32, 1, 64, 64) > 0.5).float()
    loader = DataLoader(TensorDataset(images, masks), batch_size=batch_size, shuffle=True)
    optimizer = torch.optim.RMSprop(net.parameters(), lr=lr, weight_decay=1e-8, momentum=0.9)
    if net.n_classes > 1:
        criterion = nn.CrossEntropyLoss()
    else:
        criterion = nn.BCEWithLogitsLoss()

    for epoch in range(epochs):
        net.train()
        epoch_loss = 0.0
        for imgs, true_masks in loader:
            imgs = imgs.to(device=device, dtype=torch.float32)
            mask_type = torch.float32 if net.n_classes == 1 else torch.long
            true_masks = true_masks.to(device=device, dtype=mask_type)
            masks_pred = net(imgs)
            loss = criterion(masks_pred, true_masks)  # expect: TCK605
            epoch_loss += loss.item()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_value_(net.parameters(), 0.1)
            optimizer.step()
        print(f"epoch {epoch + 1}: loss {epoch_loss / len(loader):.4f}")
    torch.save(net.state_dict(), "checkpoint.pth")


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = UNet3Plus(n_channels=3, n_classes=1)
    net.to(device=device)
    train_net(net=net, device=device)
