import argparse

import numpy as np
import torch

from task import Task, get_acts_pca


def fit_circle_probe(acts, targets, lr=1e-2, steps=2000):
    acts = torch.as_tensor(acts)
    angles = torch.as_tensor(targets, dtype=torch.float32) * (2 * np.pi / 7)
    goal = torch.stack([torch.cos(angles), torch.sin(angles)], dim=1)
    probe = torch.nn.Linear(acts.shape[1], 2)
    optimizer = torch.optim.Adam(probe.parameters(), lr=lr)
    for _ in range(steps):
        loss = torch.nn.functional.mse_loss(probe(acts), goal)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return probe


def main(model, prompts, targets):
    parser = argparse.ArgumentParser()
    parser.add_argument("--layer", type=int, default=8)
    parser.add_argument("--token", type=int, default=-1)
    parser.add_argument("--pca_k", type=int, default=5)
    args = parser.parse_args()

    task = Task(prefix="results/days_of_week/", model=model, prompts=prompts)
    acts, pca_obj = get_acts_pca(task, layer=args.layer, token=args.token, pca_k=args.pca_k)
    probe = fit_circle_probe(acts, targets)
    directions = pca_obj.inverse_transform(probe.weight.detach().numpy())
    np.save(f"results/days_of_week/probe_layer{args.layer}.npy", directions)
