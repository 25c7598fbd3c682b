import torch


def group_product(xs, ys):
    return sum(torch.sum(x * y) for x, y in zip(xs, ys))


def group_add(params, update, alpha=1.0):
    for i, p in enumerate(params):
        params[i] = p + update[i] * alpha
    return params


def normalization(v):
    s = torch.sqrt(group_product(v, v))
    return [vi / (s + 1e-6) for vi in v]


def orthnormal(w, v_list):
    for v in v_list:
        w = group_add(w, v, alpha=-group_product(w, v))
    return normalization(w)


def get_params_grad(model):
    params, grads = [], []
    for p in model.parameters():
        if p.requires_grad:
            params.append(p)
            grads.append(torch.zeros_like(p) if p.grad is None else p.grad + 0.0)
    return params, grads


def hessian_vector_product(gradsH, params, v):
    return torch.autograd.grad(gradsH, params, grad_outputs=v, only_inputs=True, retain_graph=True)
