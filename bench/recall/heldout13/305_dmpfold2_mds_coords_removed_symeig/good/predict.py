import sys

import torch

from network import GRUResNet

AA = "ARNDCQEGHILKMFPSTWYV-"


def one_hot(seq):
    idx = torch.tensor([AA.index(a) if a in AA else 20 for a in seq])
    return torch.nn.functional.one_hot(idx, num_classes=21).float().unsqueeze(0)


def main(seq):
    model = GRUResNet()
    model.load_state_dict(torch.load("dmpfold2_weights.pt", map_location="cpu", weights_only=True))
    model.eval()
    with torch.no_grad():
        coords, _ = model(one_hot(seq))
    for i, (x, y, z) in enumerate(coords[0].tolist()):
        print(f"ATOM  {i + 1:5d}  CA  GLY A{i + 1:4d}    {x:8.3f}{y:8.3f}{z:8.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
