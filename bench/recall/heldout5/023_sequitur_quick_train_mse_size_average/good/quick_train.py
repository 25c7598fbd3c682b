from statistics import mean

import torch
from torch.nn import MSELoss
from torch.optim import Adam


def train_model(model, train_set, verbose, lr, epochs, clip_value, device=None):
    optimizer = Adam(model.parameters(), lr=lr)
    criterion = MSELoss(reduction="sum")
    mean_losses = []
    for epoch in range(1, epochs + 1):
        model.train()
        losses = []
        for x in train_set:
            x = x.to(device)
            optimizer.zero_grad()
            x_prime = model(x)
            loss = criterion(x_prime, x)
            loss.backward()
            if clip_value is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip_value)
            optimizer.step()
            losses.append(loss.item())
        mean_losses.append(mean(losses))
        if verbose:
            print(f"Epoch: {epoch}, Loss: {mean_losses[-1]}")
    return mean_losses
