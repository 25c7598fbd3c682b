import torch

from models import TinyDarknet

ANCHORS = [(10, 13), (16, 30), (33, 23)]


def train(dataloader, num_classes=80, epochs=30):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TinyDarknet(ANCHORS, num_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        for batch_i, (imgs, targets) in enumerate(dataloader):
            imgs = imgs.to(device)
            targets = {k: v.to(device) for k, v in targets.items()}
            optimizer.zero_grad()
            loss = model(imgs, targets)
            loss.backward()
            optimizer.step()
            if batch_i % 50 == 0:
                print(f"[epoch {epoch} batch {batch_i}] loss {loss.item():.4f}")
        torch.save(model.state_dict(), f"yolov3_ckpt_{epoch}.pth")
