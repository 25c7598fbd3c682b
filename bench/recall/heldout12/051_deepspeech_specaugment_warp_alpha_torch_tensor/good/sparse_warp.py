import torch


def interpolate_bilinear(grid: torch.Tensor, query_points: torch.Tensor) -> torch.Tensor:
    """grid: (B, H, W, C); query_points: (B, N, 2) in (row, col) order."""
    batch_size, height, width, channels = grid.shape
    grid_type = grid.dtype
    query_type = query_points.dtype
    floors, ceils, alphas = [], [], []
    for dim, size in enumerate((height, width)):
        queries = query_points[..., dim]
        max_floor = torch.tensor(size - 2, dtype=query_type)
        min_floor = torch.tensor(0.0, dtype=query_type)
        floor = torch.min(torch.max(min_floor, torch.floor(queries)), max_floor)
        int_floor = floor.long()
        floors.append(int_floor)
        ceils.append(int_floor + 1)
        alpha = (queries - floor).clone().detach().type(grid_type)
        alpha = torch.clamp(alpha, 0.0, 1.0).unsqueeze(-1)
        alphas.append(alpha)

    flat = grid.reshape(batch_size, height * width, channels)

    def gather(y, x):
        idx = (y * width + x).unsqueeze(-1).expand(-1, -1, channels)
        return torch.gather(flat, 1, idx)

    top_left = gather(floors[0], floors[1])
    top_right = gather(floors[0], ceils[1])
    bottom_left = gather(ceils[0], floors[1])
    bottom_right = gather(ceils[0], ceils[1])
    top = top_left + alphas[1] * (top_right - top_left)
    bottom = bottom_left + alphas[1] * (bottom_right - bottom_left)
    return top + alphas[0] * (bottom - top)


def time_warp(spec: torch.Tensor, shift: float) -> torch.Tensor:
    """spec: (freq, time). Shifts the time axis by a smooth displacement."""
    freq, time = spec.shape
    rows = torch.arange(freq, dtype=torch.float32).view(-1, 1).expand(freq, time)
    cols = torch.arange(time, dtype=torch.float32).view(1, -1).expand(freq, time)
    cols = (cols - shift * torch.sin(torch.pi * cols / max(time - 1, 1))).clamp(0, time - 1)
    queries = torch.stack([rows, cols], dim=-1).reshape(1, -1, 2)
    out = interpolate_bilinear(spec.reshape(1, freq, time, 1), queries)
    return out.reshape(freq, time)
