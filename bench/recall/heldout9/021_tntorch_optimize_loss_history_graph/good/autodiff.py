import time
from functools import reduce

import torch

import tntorch as tn


def optimize(tensors, loss_function, optimizer=torch.optim.Adam, tol=1e-4, max_iter=1e4, print_freq=500, verbose=True):
    if not isinstance(tensors, (list, tuple)):
        tensors = [tensors]
    parameters = []
    for t in tensors:
        if isinstance(t, tn.Tensor):
            parameters.extend([c for c in t.cores if c.requires_grad])
        elif t.requires_grad:
            parameters.append(t)
    optimizer = optimizer(parameters)
    losses = []
    start = time.time()
    iter = 0
    while True:
        optimizer.zero_grad()
        loss = loss_function(*tensors)
        if not isinstance(loss, (tuple, list)):
            loss = [loss]
        total_loss = reduce(lambda x, y: x + y, loss)
        total_loss.backward(retain_graph=True)
        optimizer.step()
        losses.append(total_loss.detach())
        delta_loss = losses[-1] - losses[-2] if len(losses) >= 2 else float("-inf")
        if iter >= 2 and tol is not None and (losses[-1] <= tol or -delta_loss / losses[-1] <= tol):
            break
        if iter == max_iter:
            break
        if verbose and iter % print_freq == 0:
            print(f"iter: {iter} | loss: {losses[-1].item():10.6f} | total time: {time.time() - start:9.4f}")
        iter += 1
    return losses
