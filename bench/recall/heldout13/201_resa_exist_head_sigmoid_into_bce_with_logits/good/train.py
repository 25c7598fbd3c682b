import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from model import LaneNet


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    imgs = torch.randn(64, 3, 288, 800)
    labels = torch.randint(0, 5, (64, 36, 100))
    exists = torch.randint(0, 2, (64, 4))
    loader = DataLoader(TensorDataset(imgs, labels, exists), batch_size=8, shuffle=True)

    net = LaneNet().to(device)
    seg_criterion = nn.NLLLoss()
    criterion_exist = nn.BCELoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.025, momentum=0.9, weight_decay=1e-4)

    net.train()
    for epoch in range(12):
        for img, label, exist in loader:
            img, label, exist = img.to(device), label.to(device), exist.to(device)
            output = net(img)
            seg_loss = seg_criterion(F.log_softmax(output["seg"], dim=1), label)
            exist_loss = 0.1 * criterion_exist(output["exist"], exist.float())
            loss = seg_loss + exist_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: seg {seg_loss.item():.4f} exist {exist_loss.item():.4f}")


if __name__ == "__main__":
    main()
