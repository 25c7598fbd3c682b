from typing import List, Tuple, Union

import torch
from torch import nn


def conv_block(spatial_dims: int, in_channels: int, out_channels: int, stride: int = 1) -> nn.Module:
    conv = nn.Conv3d if spatial_dims == 3 else nn.Conv2d
    norm = nn.BatchNorm3d if spatial_dims == 3 else nn.BatchNorm2d
    return nn.Sequential(conv(in_channels, out_channels, 3, stride, 1), norm(out_channels), nn.ReLU(inplace=True))


class AffineHead(nn.Module):
    """Predicts an affine transform from the coarsest features and returns it as a dense displacement field."""

    def __init__(self, spatial_dims: int, image_size: List[int], decode_size: List[int], in_channels: int):
        super().__init__()
        self.spatial_dims = spatial_dims
        if spatial_dims == 2:
            in_features = in_channels * decode_size[0] * decode_size[1]
            out_features = 6
        elif spatial_dims == 3:
            in_features = in_channels * decode_size[0] * decode_size[1] * decode_size[2]
            out_features = 12
        else:
            raise ValueError(f"only support 2D/3D operation, got spatial_dims={spatial_dims}")
        self.fc = nn.Linear(in_features=in_features, out_features=out_features)
        self.grid = self.get_reference_grid(image_size)  # (spatial_dims, ...)

    @staticmethod
    def get_reference_grid(image_size: Union[Tuple[int], List[int]]) -> torch.Tensor:
        mesh_points = [torch.arange(0, dim) for dim in image_size]
        grid = torch.stack(torch.meshgrid(*mesh_points, indexing="ij"), dim=0)
        return grid.to(dtype=torch.float)

    def affine_transform(self, theta: torch.Tensor) -> torch.Tensor:
        grid_padded = torch.cat([self.grid, torch.ones_like(self.grid[:1])])
        if self.spatial_dims == 2:
            return torch.einsum("qij,bpq->bpij", grid_padded, theta.reshape(-1, 2, 3))
        return torch.einsum("qijk,bpq->bpijk", grid_padded, theta.reshape(-1, 3, 4))

    def forward(self, x: List[torch.Tensor], image_size: List[int]) -> torch.Tensor:
        f = x[0]
        self.grid.to(device=f.device)  # expect: TCK202
        theta = self.fc(f.reshape(f.shape[0], -1))
        out: torch.Tensor = self.affine_transform(theta) - self.grid
        return out


class GlobalNet(nn.Module):
    """Encoder of a RegUNet followed by an affine head: predicts a global (affine) displacement field."""

    def __init__(self, image_size: List[int], spatial_dims: int, in_channels: int, num_channel_initial: int,
                 depth: int):
        super().__init__()
        self.image_size = image_size
        channels = [num_channel_initial * 2 ** d for d in range(depth + 1)]
        blocks, c_in = [], in_channels
        for c_out in channels:
            blocks.append(conv_block(spatial_dims, c_in, c_out, stride=2 if blocks else 1))
            c_in = c_out
        self.encoder = nn.Sequential(*blocks)
        decode_size = [s // 2 ** depth for s in image_size]
        self.output_block = AffineHead(spatial_dims, image_size, decode_size, channels[-1])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output_block([self.encoder(x)], self.image_size)
