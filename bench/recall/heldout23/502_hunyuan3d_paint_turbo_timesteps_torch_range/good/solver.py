import numpy as np
import torch


class DDIMSolver:
    """Keeps a coarse grid of DDIM timesteps picked from the training schedule."""

    def __init__(self, alpha_cumprods, timesteps: int = 1000, ddim_timesteps: int = 30):
        step_ratio = timesteps // ddim_timesteps
        grid = (np.arange(1, ddim_timesteps + 1) * step_ratio).round().astype(np.int64) - 1
        self.ddim_timesteps = torch.from_numpy(grid)
        self.alpha_cumprods = torch.as_tensor(alpha_cumprods)

    def to(self, device):
        self.ddim_timesteps = self.ddim_timesteps.to(device)
        self.alpha_cumprods = self.alpha_cumprods.to(device)
        return self
