import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from model import StreamflowLSTM

CONFIG = {"compile": True, "epochs": 3, "lr": 1e-3, "n_features": 8}
WEIGHTS = "model_weights.pt"


def make_loader():
    x = torch.randn(256, 30, CONFIG["n_features"])
    y = torch.randn(256, 1)
    return DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)


def train():
    model = StreamflowLSTM(CONFIG["n_features"])
    if CONFIG["compile"]:
        model = torch.compile(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    loss_fn = torch.nn.MSELoss()
    for _ in range(CONFIG["epochs"]):
        for x, y in make_loader():
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
    torch.save(model.state_dict(), WEIGHTS)  # expect: TCK405


def evaluate():
    model = StreamflowLSTM(CONFIG["n_features"])
    state = torch.load(WEIGHTS, map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    model.eval()
    with torch.no_grad():
        for x, y in make_loader():
            print(torch.nn.functional.mse_loss(model(x), y).item())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["train", "evaluate"])
    args = parser.parse_args()
    train() if args.mode == "train" else evaluate()
