import torch
from operators import LinearOperator


def conjugate_gradient(operator: LinearOperator, rhs, max_iterations=10):
    x = torch.zeros_like(rhs)
    residual = rhs.clone()
    direction = residual.clone()
    for _ in range(max_iterations):
        (a_dir,) = operator(direction)
        alpha = torch.vdot(residual.flatten(), residual.flatten()) / torch.vdot(direction.flatten(), a_dir.flatten())
        x = x + alpha * direction
        new_residual = residual - alpha * a_dir
        beta = torch.vdot(new_residual.flatten(), new_residual.flatten()) / torch.vdot(residual.flatten(), residual.flatten())
        direction = new_residual + beta * direction
        residual = new_residual
    return x
