import os

import numpy as np
import torch

CAMERAS = ("head", "hand_0", "hand_1")


def load_agibot_cameras(base_path: str, input_idx: int, latent_frames: int, rescale_720p: bool):
    """Extrinsics (3 cameras x latent_frames, 4x4) and intrinsics (fx, fy, cx, cy)."""
    extrinsics, intrinsics = [], []
    for cam in CAMERAS:
        ext = np.loadtxt(os.path.join(base_path, "cameras", f"{input_idx}_extrinsic_{cam}.txt"))[:latent_frames]
        ext = torch.from_numpy(ext).to(torch.bfloat16)
        bottom = torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=torch.bfloat16).expand(latent_frames, -1)
        extrinsics.append(torch.cat((ext, bottom), dim=1).reshape(-1, 4, 4))
        intr = np.loadtxt(os.path.join(base_path, "cameras", f"{input_idx}_intrinsic_{cam}.txt"))[:latent_frames]
        intrinsics.append(torch.from_numpy(intr).to(torch.bfloat16))
    intrinsics = torch.cat(intrinsics, dim=0)
    if rescale_720p:
        intrinsics[:, [0, 2]] *= 1280 / 768
        intrinsics[:, [1, 3]] *= 704 / 432
    return torch.cat(extrinsics, dim=0), intrinsics
