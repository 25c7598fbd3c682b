"""Quality metrics of rendered test views against the reference images."""

import numpy as np
import torch


def rgb2gray(img):
    img = img.detach().cpu().numpy()
    return 255.0 * (0.2989 * img[..., 0] + 0.5870 * img[..., 1] + 0.1140 * img[..., 2])


def generate_diff_data(dim_h, dim_w, test, reference, q_container, flags):
    diff_base = torch.abs(test - reference.reshape(dim_w * dim_h, -1))
    mse = torch.mean(diff_base ** 2)
    q_container["mse"].append(mse.item())
    if "psnr" in flags:
        q_container["psnr"].append((10 * torch.log10(1.0 / mse)).item())
    if "ssim" in flags:
        # imported here: pyrtools is not available on every platform
        from util.IW_SSIM_PyTorch import IW_SSIM

        iw_ssim = IW_SSIM(use_cuda=torch.cuda.is_available())
        ssim = iw_ssim.test(rgb2gray(reference.reshape(dim_w, dim_h, -1)), rgb2gray(test.reshape(dim_w, dim_h, -1)))
        q_container["ssim"].append(ssim.item())
    diff = np.clip(diff_base.detach().cpu().numpy().reshape(dim_h, dim_w, -1)[:, :, :3], 0.0, 1.0)
    q_container["diff"].append((diff * 255).astype(np.uint8))
