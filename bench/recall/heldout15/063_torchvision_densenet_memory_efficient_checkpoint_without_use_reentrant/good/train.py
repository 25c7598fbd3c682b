import torch
from torch import nn

from densenet import DenseNet


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    # checkpointed bottlenecks: trade compute for memory on large batches
    model = DenseNet(growth_rate=12, block_config=(4, 4, 4), num_init_features=24, num_classes=10,
                     memory_efficient=True).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    model.train()
    for step in range(20):
        images = torch.randn(32, 3, 64, 64, device=device)
        labels = torch.randint(0, 10, (32,), device=device)
        loss = criterion(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
