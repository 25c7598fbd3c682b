import torch
import torch.nn as nn
import torchvision

from fused_adam import FusedAdam


def main():
    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
    optimizer = FusedAdam(model.parameters(), lr=1e-3, weight_decay=0.05)
    criterion = nn.CrossEntropyLoss()
    for step in range(100):
        images = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
        labels = torch.randint(0, 1000, (64,), device="cuda")
        loss = criterion(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
