import sys

import torch

from models import C3D
from train import Metrics


def eval(eval_loader, checkpoint):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = C3D().to(device)
    model.load_state_dict(torch.load(checkpoint, map_location=device, weights_only=True))
    acc_metric = Metrics()

    model.eval()
    accs = []
    for step, data in enumerate(eval_loader):
        x_input = data["data"].to(device)
        outputs = model(x_input)  # expect: TCK113
        accs.append(acc_metric.get_accuracy(outputs, data["labels"]))
        if step % 100 == 0:
            print(f"Step: {step}/{len(eval_loader)} acc: {accs[-1]:.4f}")
    print(f"Accuracy of the network: {100.0 * sum(accs) / len(accs):.3f} %")


if __name__ == "__main__":
    from data import build_loader

    eval(build_loader("test"), sys.argv[1])
