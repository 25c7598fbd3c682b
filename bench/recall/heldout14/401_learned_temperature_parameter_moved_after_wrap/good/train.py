import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from model import ScaledCosineClassifier


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randn(512, 32), torch.randint(0, 10, (512,)))
    loader = DataLoader(data, batch_size=64, shuffle=True)

    model = ScaledCosineClassifier(32, 10, device=device).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    for epoch in range(5):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item(), model.log_temperature.exp().item())

    torch.save(model.state_dict(), "cosine_head.pt")


if __name__ == "__main__":
    main()
