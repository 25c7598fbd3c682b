import torch
from net import Net


def test(cfg, loader):
    net = Net(cfg)
    state_dict = torch.load(cfg.snapshot, map_location="cpu", weights_only=True)
    net.load_state_dict(state_dict)
    net.eval()
    predictions = []
    with torch.no_grad():
        for image, shape, name in loader:
            pred = net(image, shape)
            predictions.append((name, torch.sigmoid(pred)))
    return predictions
