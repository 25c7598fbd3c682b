import torch

from initializers import gen_initial_conditions


def toy_acquisition(x):
    # negative distance to a fixed optimum, one value per candidate
    target = torch.full((x.shape[-1],), 0.3, dtype=x.dtype)
    return -((x.squeeze(1) - target) ** 2).sum(dim=-1)


def optimize_acqf(acq_function, bounds, num_restarts=4, raw_samples=64, steps=50):
    x0 = gen_initial_conditions(acq_function, bounds, num_restarts, raw_samples, {"eta": 2.0})
    x = x0.clone().requires_grad_(True)
    opt = torch.optim.Adam([x], lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        loss = -acq_function(x).sum()
        loss.backward()
        opt.step()
        with torch.no_grad():
            x.clamp_(bounds[0], bounds[1])
    with torch.no_grad():
        vals = acq_function(x)
    return x[vals.argmax()].detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    bounds = torch.stack([torch.zeros(3, dtype=torch.double), torch.ones(3, dtype=torch.double)])
    print(optimize_acqf(toy_acquisition, bounds))
