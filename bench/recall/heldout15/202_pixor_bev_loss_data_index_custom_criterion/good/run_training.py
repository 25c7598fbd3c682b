import torch
from torch.utils.data import DataLoader, TensorDataset

from detector.losses import BEVDetectionLoss
from detector.model import PixorLite

device = "cuda" if torch.cuda.is_available() else "cpu"
max_epochs = 4

bev = torch.randn(64, 36, 40, 40)
labels = torch.zeros(64, 7, 40, 40)
labels[:, 0, 10:14, 10:14] = 1.0
train_loader = DataLoader(TensorDataset(bev, labels), batch_size=4, shuffle=True, num_workers=2)

net = PixorLite().to(device)
criterion = BEVDetectionLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)


def train(epoch):
    net.train()
    total_loss = 0.0
    for batch_idx, (pc_feature, label_map) in enumerate(train_loader):
        n = pc_feature.size(0)
        pc_feature = pc_feature.to(device)
        label_map = label_map.to(device)
        predictions = net(pc_feature)
        loss = criterion(predictions, label_map)
        loss /= n
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        if batch_idx % 5 == 0:
            print("epoch %d iter %d avg loss %.4f" % (epoch, batch_idx, total_loss / (batch_idx + 1)))
    return total_loss / len(train_loader)


if __name__ == "__main__":
    for epoch in range(max_epochs):
        print("epoch", epoch, "loss", train(epoch))
