import torch

from subpix import conv_quad_interp3d, refine_half_precision
from thin_plate_spline import get_tps_transform, warp_points_tps


def main():
    src = torch.rand(2, 6, 2)
    dst = src + 0.05 * torch.randn_like(src)
    kernel_w, affine_w = get_tps_transform(src, dst)
    warped = warp_points_tps(src, src, kernel_w, affine_w)
    print("tps max error:", (warped - dst).abs().max().item())

    response = torch.rand(5, 16, 16)
    offsets, values = conv_quad_interp3d(response)
    print("sub-voxel offsets:", offsets.abs().max().item(), values.shape)
    print("fp16 path:", refine_half_precision(response.half()).shape)


if __name__ == "__main__":
    main()
