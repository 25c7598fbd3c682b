import torch
from torch.utils.data import DataLoader

from segmentor import LaneSegmentor


def train(dataset, epochs=12):
    cfg = {"num_classes": 5, "bg_weight": 0.4, "feat_h": 36, "feat_w": 100}
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = LaneSegmentor(cfg).to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.025, momentum=0.9, weight_decay=1e-4)
    loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=4, drop_last=True)
    for epoch in range(epochs):
        net.train()
        for batch in loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            output = net(batch["img"])
            loss = net.loss(output, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save(net.state_dict(), f"lane_seg_{epoch}.pth")
