import numpy as np
import torch


def look(vertices, eye, direction=[0, 1, 0], up=None):
    device = vertices.device
    if isinstance(direction, (list, tuple)):
        direction = torch.tensor(direction, dtype=torch.float32, device=device)
    elif isinstance(direction, np.ndarray):
        direction = torch.from_numpy(direction).to(device)
    elif torch.is_tensor(direction):
        direction.to(device)  # expect: TCK202
    if isinstance(eye, (list, tuple)):
        eye = torch.tensor(eye, dtype=torch.float32, device=device)
    elif isinstance(eye, np.ndarray):
        eye = torch.from_numpy(eye).to(device)
    elif torch.is_tensor(eye):
        eye.to(device)  # expect: TCK202
    if up is None:
        up = torch.tensor([0.0, 1.0, 0.0], device=device)
    z_axis = torch.nn.functional.normalize(direction, eps=1e-5)
    x_axis = torch.nn.functional.normalize(torch.cross(up, z_axis, dim=-1), eps=1e-5)
    y_axis = torch.nn.functional.normalize(torch.cross(z_axis, x_axis, dim=-1), eps=1e-5)
    r = torch.stack((x_axis, y_axis, z_axis))
    return torch.matmul(vertices - eye, r.t())
