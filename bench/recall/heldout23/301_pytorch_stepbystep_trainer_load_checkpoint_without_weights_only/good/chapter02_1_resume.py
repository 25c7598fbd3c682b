"""Chapter 2.1: train a linear regression for a few epochs, checkpoint it, and resume."""
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset, random_split

from stepbystep.v0 import StepByStep


def make_data(n=100, seed=42):
    rng = np.random.default_rng(seed)
    x = rng.random((n, 1))
    y = 1 + 2 * x + 0.1 * rng.standard_normal((n, 1))
    dataset = TensorDataset(torch.as_tensor(x).float(), torch.as_tensor(y).float())
    train_data, val_data = random_split(dataset, [80, 20], generator=torch.Generator().manual_seed(seed))
    return DataLoader(train_data, batch_size=16, shuffle=True), DataLoader(val_data, batch_size=16)


def build():
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(1, 1))
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    return model, optimizer, nn.MSELoss(reduction="mean")


if __name__ == "__main__":
    train_loader, val_loader = make_data()

    model, optimizer, loss_fn = build()
    sbs = StepByStep(model, loss_fn, optimizer)
    sbs.set_loaders(train_loader, val_loader)
    sbs.train(n_epochs=50)
    sbs.save_checkpoint("model_checkpoint.pth")

    # a fresh, untrained model picks up where the first one stopped
    new_model, new_optimizer, loss_fn = build()
    new_sbs = StepByStep(new_model, loss_fn, new_optimizer)
    new_sbs.load_checkpoint("model_checkpoint.pth")
    new_sbs.set_loaders(train_loader, val_loader)
    new_sbs.train(n_epochs=50)
    print(new_model.state_dict())
