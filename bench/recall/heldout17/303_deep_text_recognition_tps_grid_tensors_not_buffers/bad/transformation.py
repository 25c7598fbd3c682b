import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


class LocalizationNetwork(nn.Module):
    """Predicts the K fiducial points of the text region from the input image."""

    def __init__(self, num_fiducial, in_channels):
        super().__init__()
        self.num_fiducial = num_fiducial
        self.conv = nn.Sequential(
            nn.Conv2d(in_channels, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(64, 128, 3, 1, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(128, 256, 3, 1, 1, bias=False), nn.BatchNorm2d(256), nn.ReLU(True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc1 = nn.Sequential(nn.Linear(256, 128), nn.ReLU(True))
        self.fc2 = nn.Linear(128, num_fiducial * 2)
        nn.init.zeros_(self.fc2.weight)

    def forward(self, images):
        features = self.conv(images).flatten(1)
        return self.fc2(self.fc1(features)).view(images.size(0), self.num_fiducial, 2)


class GridGenerator(nn.Module):
    """Thin-plate-spline grid: P' = P_hat @ (inv_delta_C @ C')."""

    def __init__(self, num_fiducial, out_size, batch_size):
        super().__init__()
        self.eps = 1e-6
        self.out_h, self.out_w = out_size
        self.num_fiducial = num_fiducial
        ctrl = self._control_points(num_fiducial)
        grid = self._output_grid(self.out_w, self.out_h)
        self.inv_delta_C = torch.tensor(self._inv_delta_C(ctrl)).float().cuda()
        self.P_hat = torch.tensor(self._P_hat(ctrl, grid)).float().cuda()
        # one copy per sample, built once for the largest batch
        self.batch_inv_delta_C = self.inv_delta_C.repeat(batch_size, 1, 1)  # expect: TCK606
        self.batch_P_hat = self.P_hat.repeat(batch_size, 1, 1)  # expect: TCK606

    @staticmethod
    def _control_points(k):
        xs = np.linspace(-1.0, 1.0, k // 2)
        top = np.stack([xs, -np.ones(k // 2)], axis=1)
        bottom = np.stack([xs, np.ones(k // 2)], axis=1)
        return np.concatenate([top, bottom], axis=0)

    @staticmethod
    def _output_grid(w, h):
        gx = (np.arange(-w, w, 2) + 1.0) / w
        gy = (np.arange(-h, h, 2) + 1.0) / h
        return np.stack(np.meshgrid(gx, gy), axis=2).reshape(-1, 2)

    def _inv_delta_C(self, ctrl):
        k = len(ctrl)
        dist = np.linalg.norm(ctrl[:, None] - ctrl[None], axis=2)
        np.fill_diagonal(dist, 1)
        hat = dist**2 * np.log(dist)
        delta = np.concatenate(
            [
                np.concatenate([np.ones((k, 1)), ctrl, hat], axis=1),
                np.concatenate([np.zeros((2, 3)), ctrl.T], axis=1),
                np.concatenate([np.zeros((1, 3)), np.ones((1, k))], axis=1),
            ],
            axis=0,
        )
        return np.linalg.inv(delta)

    def _P_hat(self, ctrl, grid):
        norm = np.linalg.norm(grid[:, None] - ctrl[None], axis=2)
        rbf = norm**2 * np.log(norm + self.eps)
        return np.concatenate([np.ones((len(grid), 1)), grid, rbf], axis=1)

    def build_P_prime(self, C_prime):
        b = C_prime.size(0)
        C_prime = torch.cat([C_prime, C_prime.new_zeros(b, 3, 2)], dim=1)
        T = torch.bmm(self.batch_inv_delta_C[:b], C_prime)
        return torch.bmm(self.batch_P_hat[:b], T)


class TPSSpatialTransformer(nn.Module):
    def __init__(self, num_fiducial, out_size, batch_size, in_channels=1):
        super().__init__()
        self.out_size = out_size
        self.localization = LocalizationNetwork(num_fiducial, in_channels)
        self.grid_generator = GridGenerator(num_fiducial, out_size, batch_size)

    def forward(self, images):
        C_prime = self.localization(images)
        P_prime = self.grid_generator.build_P_prime(C_prime)
        grid = P_prime.reshape(P_prime.size(0), self.out_size[0], self.out_size[1], 2)
        return F.grid_sample(images, grid, padding_mode="border", align_corners=True)
