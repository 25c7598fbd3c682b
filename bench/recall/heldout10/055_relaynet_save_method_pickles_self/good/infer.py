import sys

import torch

from relay_net import ReLayNet


def main(path="models/Exp01/relaynet_epoch2.model"):
    model = ReLayNet()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    model.eval()
    with torch.no_grad():
        scan = torch.randn(1, 1, 64, 32)
        layers = model(scan).argmax(dim=1)
    print(layers.shape)


if __name__ == "__main__":
    main(*sys.argv[1:])
