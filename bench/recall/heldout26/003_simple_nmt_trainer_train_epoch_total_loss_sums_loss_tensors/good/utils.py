def get_grad_norm(parameters, norm_type=2):
    """Norm of the gradients currently stored in `.grad` (read through `.data`, so no graph)."""
    parameters = [p for p in parameters if p.grad is not None]
    total = 0
    try:
        for p in parameters:
            total += p.grad.data.norm(norm_type) ** norm_type
        total = total ** (1.0 / norm_type)
    except Exception as e:
        print(e)
    return total


def get_parameter_norm(parameters, norm_type=2):
    """Norm of the parameter values (read through `.data`, so no graph)."""
    total = 0
    try:
        for p in parameters:
            total += p.data.norm(norm_type) ** norm_type
        total = total ** (1.0 / norm_type)
    except Exception as e:
        print(e)
    return total
