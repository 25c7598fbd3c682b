import torch
import torch.nn.functional as F
from torch import nn

from losses import GaussianNegLogLik, rmse


class CRU(nn.Module):
    def __init__(self, obs_dim, hidden=64, task="interpolation", device="cpu"):
        super().__init__()
        self.task = task
        self._device = device
        self.cell = nn.GRU(obs_dim + 1, hidden, batch_first=True)
        self.mean_head = nn.Linear(hidden, obs_dim)
        self.var_head = nn.Linear(hidden, obs_dim)

    def forward(self, obs, times):
        h, _ = self.cell(torch.cat([obs, times.unsqueeze(-1)], dim=-1))
        return self.mean_head(h), F.softplus(self.var_head(h)) + 1e-4

    def interpolation(self, data, track_gradient=True):
        obs, truth, obs_valid, obs_times, mask_truth = [t.to(self._device) for t in data]
        with torch.set_grad_enabled(track_gradient):
            output_mean, output_var = self.forward(obs * obs_valid[..., None], obs_times)
            loss = GaussianNegLogLik(output_mean, truth, output_var, mask=mask_truth)
            mask_imput = (~obs_valid[..., None]) * mask_truth
            imput_loss = GaussianNegLogLik(output_mean, truth, output_var, mask=mask_imput)
        return loss, output_mean, truth, mask_truth, imput_loss

    def regression(self, data, track_gradient=True):
        obs, truth, obs_times = [t.to(self._device) for t in data]
        with torch.set_grad_enabled(track_gradient):
            output_mean, output_var = self.forward(obs, obs_times)
            loss = GaussianNegLogLik(output_mean[:, -1], truth, output_var[:, -1])
        return loss, output_mean[:, -1], truth, None, None

    def train_epoch(self, dl, optimizer):
        epoch_ll = 0
        epoch_rmse = 0
        epoch_imput_ll = 0
        for i, data in enumerate(dl):
            if self.task == "interpolation":
                loss, output_mean, truth, mask_truth, imput_loss = self.interpolation(data)
            elif self.task == "regression":
                loss, output_mean, truth, mask_truth, imput_loss = self.regression(data)
            else:
                raise Exception("Unknown task")

            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.parameters(), 1)
            optimizer.step()

            epoch_ll += loss  # expect: TCK101
            epoch_rmse += rmse(truth, output_mean, mask_truth).item()
            if imput_loss is not None:
                epoch_imput_ll += imput_loss  # expect: TCK101
        return epoch_ll / (i + 1), epoch_rmse / (i + 1), epoch_imput_ll / (i + 1)
