import torch
import torch.nn as nn


def train(data_loader, models_bag, setup, criterion):
    train_size = len(data_loader)
    total_loss = 0.0
    n = 0
    models_bag["mvnetwork"].train()
    models_bag["mvtn"].train()
    for i, (targets, meshes, points) in enumerate(data_loader):
        azim, elev, dist = models_bag["mvtn"](points, c_batch_size=len(targets))
        rendered_images, _ = models_bag["mvrenderer"](meshes, points, azim=azim, elev=elev, dist=dist)
        targets = targets.cuda().long()
        outputs = models_bag["mvnetwork"](rendered_images)[0]
        loss = criterion(outputs, targets)
        models_bag["optimizer"].zero_grad()
        models_bag["mvtn_optimizer"].zero_grad()
        loss.backward()
        models_bag["optimizer"].step()
        models_bag["mvtn_optimizer"].step()
        total_loss += loss.item()
        n += 1
    return total_loss / n
