import math

import torch
from tqdm import tqdm


def test_psnr(model, pixel_criterion, dataloader, device):
    """Mean PSNR of the model's super-resolved test images."""
    model.eval()
    total_psnr = 0.
    with torch.no_grad():
        for lr, hr in tqdm(dataloader, total=len(dataloader)):
            lr, hr = lr.to(device), hr.to(device)
            sr = model(lr)
            mse = pixel_criterion(sr, hr).item()
            total_psnr += 10 * math.log10(1. / max(mse, 1e-10))
    return total_psnr / len(dataloader)
