from typing import Union

import torch


def generate_bred_vector(
    x: torch.Tensor,
    model,
    noise_amplitude: Union[float, torch.Tensor],
    integration_steps: int = 40,
    inflate: bool = False,
) -> torch.Tensor:
    """Breeds a perturbation by repeatedly integrating perturbed initial conditions.

    x has shape [ENSEMBLE, TIME, CHANNEL, LAT, LON]; model maps a state to the next one.
    """
    if isinstance(noise_amplitude, float):
        noise_amplitude = torch.tensor([noise_amplitude])
    noise_amplitude = noise_amplitude.to(x.device, x.dtype)

    x0 = x[:1]
    xd = model(x0)  # control forecast

    dx = noise_amplitude[:, None, None] * torch.randn(x.shape, device=x.device, dtype=x.dtype)
    for _ in range(integration_steps):
        x2 = model(x + dx)
        dx = x2 - xd
        if inflate:
            dx += noise_amplitude[:, None, None] * (dx - dx.mean(dim=0))

    gamma = torch.norm(x) / torch.norm(x + dx)  # expect: TCK903
    return noise_amplitude[:, None, None] * dx * gamma
