import math

import torch


def phase_vocoder(complex_specgrams, rate, phase_advance):
    """Speed up in time without changing pitch.

    complex_specgrams: (..., freq, time, 2) real/imaginary pairs; phase_advance: (freq, 1).
    """
    time_steps = torch.arange(0, complex_specgrams.size(-2), rate, device=complex_specgrams.device,
                              dtype=complex_specgrams.dtype)
    alphas = time_steps % 1.0
    phase_0 = torch.atan2(complex_specgrams[..., :1, 1], complex_specgrams[..., :1, 0])
    complex_specgrams = torch.nn.functional.pad(complex_specgrams, [0, 0, 0, 2])
    specgrams_0 = complex_specgrams.index_select(-2, time_steps.long())
    specgrams_1 = complex_specgrams.index_select(-2, (time_steps + 1).long())
    angle_0 = torch.atan2(specgrams_0[..., 1], specgrams_0[..., 0])
    angle_1 = torch.atan2(specgrams_1[..., 1], specgrams_1[..., 0])
    norm_0 = torch.norm(specgrams_0, p=2, dim=-1)
    norm_1 = torch.norm(specgrams_1, p=2, dim=-1)
    phase = angle_1 - angle_0 - phase_advance
    phase = phase - 2 * math.pi * torch.round(phase / (2 * math.pi))
    phase = phase + phase_advance
    phase = torch.cat([phase_0, phase[..., :-1]], dim=-1)
    phase_acc = torch.cumsum(phase, -1)
    mag = alphas * norm_1 + (1 - alphas) * norm_0
    return torch.stack([mag * torch.cos(phase_acc), mag * torch.sin(phase_acc)], dim=-1)
