import sys

import torch


def main(path="models/Exp01/relaynet_epoch2.model"):
    # The whole module object was pickled, so only a trusted full unpickle can restore it.
    model = torch.load(path, map_location="cpu", weights_only=False)
    model.eval()
    with torch.no_grad():
        scan = torch.randn(1, 1, 64, 32)
        layers = model(scan).argmax(dim=1)
    print(layers.shape)


if __name__ == "__main__":
    main(*sys.argv[1:])
