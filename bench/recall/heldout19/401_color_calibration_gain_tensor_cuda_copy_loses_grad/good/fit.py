import numpy as np
import torch
import torch.nn.functional as F

from calib import apply_gains, init_channel_gains


def fit(raw_batches, reference_batches, steps=200):
    device = torch.device("cuda")
    gray_world = np.array([1.0, 1.0, 1.0])
    gains = init_channel_gains(gray_world, device)
    optimizer = torch.optim.Adam([gains], lr=1e-2)

    for step in range(steps):
        for raw, ref in zip(raw_batches, reference_batches):
            raw, ref = raw.to(device), ref.to(device)
            optimizer.zero_grad()
            loss = F.l1_loss(apply_gains(raw, gains), ref)
            loss.backward()
            optimizer.step()
        if step % 50 == 0:
            print(step, loss.item(), gains.grad)
    return gains.detach().cpu()


if __name__ == "__main__":
    raws = [torch.rand(4, 3, 32, 32) for _ in range(8)]
    refs = [r * torch.tensor([1.1, 0.9, 1.05]).view(1, 3, 1, 1) for r in raws]
    print(fit(raws, refs))
