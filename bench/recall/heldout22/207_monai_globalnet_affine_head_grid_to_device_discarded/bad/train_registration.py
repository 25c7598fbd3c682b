import torch
import torch.nn.functional as F

from regunet import GlobalNet


def warp(moving: torch.Tensor, ddf: torch.Tensor) -> torch.Tensor:
    """Resample a 2D image with a dense displacement field given in voxel units."""
    b, _, h, w = moving.shape
    ys, xs = torch.meshgrid(torch.arange(h, device=moving.device), torch.arange(w, device=moving.device), indexing="ij")
    coords = torch.stack([ys, xs]).float()[None] + ddf
    coords = torch.stack([coords[:, 1] / (w - 1), coords[:, 0] / (h - 1)], dim=-1) * 2 - 1
    return F.grid_sample(moving, coords, align_corners=True)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = GlobalNet(image_size=[64, 64], spatial_dims=2, in_channels=2, num_channel_initial=16, depth=3).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for step in range(200):
        fixed = torch.rand(8, 1, 64, 64, device=device)
        moving = torch.roll(fixed, shifts=(3, -2), dims=(2, 3))
        ddf = model(torch.cat([moving, fixed], dim=1))
        loss = F.mse_loss(warp(moving, ddf), fixed)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
