import torch
from torch import nn


class BaseCube(nn.Module):
    def __init__(self, coords, nchan=1):
        super().__init__()
        self.coords = coords
        self.nchan = nchan
        self.base_cube = nn.Parameter(torch.zeros(nchan, coords.npix, coords.npix))

    def forward(self):
        return torch.nn.functional.softplus(self.base_cube)


class ImageCube(nn.Module):
    def __init__(self, coords, nchan=1):
        super().__init__()
        self.coords = coords
        self.nchan = nchan
        self.cube = None

    def forward(self, cube):
        self.cube = cube
        return cube


class HannConvCube(nn.Module):
    def __init__(self, nchan):
        super().__init__()
        self.m = nn.Conv2d(nchan, nchan, kernel_size=3, padding=1)

    def forward(self, cube):
        return self.m(cube.unsqueeze(0)).squeeze(0)
