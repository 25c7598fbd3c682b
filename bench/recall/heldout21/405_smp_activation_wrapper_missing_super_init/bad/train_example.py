import torch
import torch.nn as nn

from smp.utils.losses import DiceLoss
from smp.utils.metrics import IoU


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 1)
    ).to(device)
    loss_fn = DiceLoss(activation="sigmoid")
    metric = IoU(threshold=0.5, activation="sigmoid")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(100):
        images = torch.randn(4, 3, 64, 64, device=device)
        masks = (torch.rand(4, 1, 64, 64, device=device) > 0.5).float()
        logits = model(images)
        loss = loss_fn(logits, masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(step, loss.item(), metric(logits.detach(), masks).item())


if __name__ == "__main__":
    main()
