import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from strategies import RandomStrategy
from supernet import RandomSampler, SuperMLP


def main(epochs=20, log_every=50):
    device = torch.device("cuda")
    data = datasets.MNIST("data", train=True, download=True,
                          transform=transforms.Compose([transforms.ToTensor(), transforms.Lambda(torch.flatten)]))
    loader = DataLoader(data, batch_size=512, shuffle=True, num_workers=4, pin_memory=True)
    model = SuperMLP().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    strategy = RandomStrategy(RandomSampler(), random_samples=5)
    step = 0
    for epoch in range(epochs):
        model.train()
        for inputs, targets in loader:
            inputs, targets = inputs.to(device, non_blocking=True), targets.to(device, non_blocking=True)
            loss = strategy(model, inputs, targets)
            optimizer.step()
            optimizer.zero_grad()
            step += 1
            if step % log_every == 0:
                print(f"epoch {epoch} step {step}: loss {float(loss):.4f}")


if __name__ == "__main__":
    main()
