import torch

from tasks import DetectionModel


def train(epochs=3, steps=20, device="cuda" if torch.cuda.is_available() else "cpu"):
    model = DetectionModel(use_gradient_checkpointing=True).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
    for epoch in range(epochs):
        model.train()
        for _ in range(steps):
            images = torch.randn(8, 3, 128, 128, device=device, requires_grad=True)
            target = torch.randn(8, 84, 8, 8, device=device)
            optimizer.zero_grad()
            loss = (model(images) - target).pow(2).mean()
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            val = model(torch.randn(8, 3, 128, 128, device=device)).abs().mean().item()
        print(f"epoch {epoch}: loss {loss.item():.4f} val-activation {val:.4f}")


if __name__ == "__main__":
    train()
