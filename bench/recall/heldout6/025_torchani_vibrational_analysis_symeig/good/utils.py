import math

import torch


def vibrational_analysis(masses, hessian, mode_type="MDU"):
    if mode_type != "MDU":
        raise ValueError("Only MDU modes are implemented")
    inv_sqrt_mass = (1 / masses.sqrt()).repeat_interleave(3, dim=1)
    mass_scaled_hessian = hessian * inv_sqrt_mass.unsqueeze(1) * inv_sqrt_mass.unsqueeze(2)
    if mass_scaled_hessian.shape[0] != 1:
        raise ValueError("The input should contain only one molecule")
    mass_scaled_hessian = mass_scaled_hessian.squeeze(0)
    eigenvalues, eigenvectors = torch.linalg.eigh(mass_scaled_hessian)
    angular_frequencies = eigenvalues.sqrt()
    frequencies = angular_frequencies / (2 * math.pi)
    mw_normalized = eigenvectors.t()
    return frequencies, mw_normalized
