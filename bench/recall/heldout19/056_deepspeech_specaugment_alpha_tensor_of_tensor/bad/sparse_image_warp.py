import torch


def interpolate_bilinear(grid, query_points, indexing="ij"):
    if indexing not in ("ij", "xy"):
        raise ValueError("Indexing mode must be 'ij' or 'xy'")
    batch_size, height, width, channels = grid.shape
    shape = [batch_size, height, width, channels]
    query_type = query_points.dtype
    grid_type = grid.dtype
    num_queries = query_points.shape[1]

    alphas, floors, ceils = [], [], []
    index_order = [0, 1] if indexing == "ij" else [1, 0]
    unstacked_query_points = query_points.unbind(2)

    for dim in index_order:
        queries = unstacked_query_points[dim]
        size_in_indexing_dimension = shape[dim + 1]
        max_floor = torch.tensor(size_in_indexing_dimension - 2, dtype=query_type)
        min_floor = torch.tensor(0.0, dtype=query_type)
        maxx = torch.max(min_floor, torch.floor(queries))
        floor = torch.min(maxx, max_floor)
        int_floor = floor.long()
        floors.append(int_floor)
        ceils.append(int_floor + 1)

        alpha = torch.tensor(queries - floor, dtype=grid_type)  # expect: TCK704
        min_alpha = torch.tensor(0.0, dtype=grid_type)
        max_alpha = torch.tensor(1.0, dtype=grid_type)
        alpha = torch.min(torch.max(min_alpha, alpha), max_alpha)
        alphas.append(torch.unsqueeze(alpha, 2))

    flattened_grid = torch.reshape(grid, [batch_size * height * width, channels])
    batch_offsets = torch.reshape(torch.arange(batch_size) * height * width, [batch_size, 1])

    def gather(y_coords, x_coords):
        linear_coordinates = batch_offsets + y_coords * width + x_coords
        gathered_values = torch.gather(flattened_grid.t(), 1, linear_coordinates)
        return torch.reshape(gathered_values, [batch_size, num_queries, channels])

    top_left = gather(floors[0], floors[1])
    top_right = gather(floors[0], ceils[1])
    bottom_left = gather(ceils[0], floors[1])
    bottom_right = gather(ceils[0], ceils[1])
    interp_top = alphas[1] * (top_right - top_left) + top_left
    interp_bottom = alphas[1] * (bottom_right - bottom_left) + bottom_left
    return alphas[0] * (interp_bottom - interp_top) + interp_top


def dense_image_warp(image, flow):
    batch_size, height, width, channels = image.shape
    grid_x, grid_y = torch.meshgrid(torch.arange(width), torch.arange(height), indexing="xy")
    stacked_grid = torch.stack((grid_y, grid_x), dim=2).float()
    batched_grid = stacked_grid.unsqueeze(0)
    query_points_on_grid = batched_grid - flow
    query_points_flattened = torch.reshape(query_points_on_grid, [batch_size, height * width, 2])
    interpolated = interpolate_bilinear(image, query_points_flattened)
    return torch.reshape(interpolated, [batch_size, height, width, channels])


def time_warp(spec, max_shift=5):
    # spec: [1, freq, time]
    num_rows, spec_len = spec.shape[1], spec.shape[2]
    point = int(torch.randint(max_shift, spec_len - max_shift, (1,)))
    shift = int(torch.randint(-max_shift, max_shift + 1, (1,)))
    flow = torch.zeros(1, num_rows, spec_len, 2)
    flow[..., 1] = -shift * torch.exp(-((torch.arange(spec_len) - point) ** 2) / (2.0 * max_shift ** 2))
    warped = dense_image_warp(spec.unsqueeze(3), flow)
    return warped.squeeze(3)
