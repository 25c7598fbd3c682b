import argparse
import os
import pickle
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

from models import CNN1
from training import train_and_validate

VARIABLES_FOLDER = "pkl"
EPOCHS = 40


def load_spectrograms(folders, height=64, width=128):
    n = 32 * len(folders)
    x = torch.randn(n, height, width)
    y = torch.randint(0, len(folders), (n,))
    return TensorDataset(x, y)


def load_cnn(path, device="cpu"):
    with open(path, "rb") as f:
        params = pickle.load(f)
    model = CNN1(height=params["height"], width=params["width"], output_dim=params["output_dim"],
                 zero_pad=params["zero_pad"], spec_size=params["spec_size"])
    model.load_state_dict(params["state_dict"])
    return model.to(device)


def train_model(folders, ofile=None):
    train_set = load_spectrograms(folders)
    eval_set = load_spectrograms(folders)
    train_loader = DataLoader(train_set, batch_size=16, num_workers=4, drop_last=True, shuffle=True)
    valid_loader = DataLoader(eval_set, batch_size=16, num_workers=4)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = CNN1(height=64, width=128, output_dim=len(folders))
    model.to(device)

    loss_function = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(params=model.parameters(), lr=0.002, weight_decay=0.02)
    best_model, valid_f1 = train_and_validate(model, train_loader, valid_loader, loss_function, optimizer, EPOCHS, device)
    print(f"best validation f1: {max(valid_f1):.3f}")

    if ofile is None:
        ofile = f"{best_model.__class__.__name__}_{time.strftime('%Y%m%d_%H%M%S')}.pt"
    os.makedirs(VARIABLES_FOLDER, exist_ok=True)
    modelname = os.path.join(VARIABLES_FOLDER, ofile)
    print(f"Saving model to: {modelname}")
    model_params = {
        "height": best_model.height, "width": best_model.width, "output_dim": best_model.output_dim,
        "zero_pad": best_model.zero_pad, "spec_size": best_model.spec_size,
        "validation_f1": max(valid_f1), "state_dict": best_model.state_dict(),
    }
    with open(modelname, "wb") as output_file:
        pickle.dump(model_params, output_file)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-i", "--input", nargs="+", required=True)
    parser.add_argument("-o", "--ofile", default=None)
    args = parser.parse_args()
    train_model(args.input, args.ofile)
