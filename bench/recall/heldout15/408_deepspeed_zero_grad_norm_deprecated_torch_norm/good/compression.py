import numpy as np
import torch


def compress_with_error_feedback(buffer, error):
    """1-bit compression of a momentum buffer: keep the sign, scale by the RMS of the compensated values."""
    compensated = buffer + error
    server_scale = torch.linalg.norm(compensated) / np.sqrt(compensated.numel())
    signs = compensated.sign().add_(1).bool()
    decompressed = (signs.float() * 2 - 1) * server_scale
    error.copy_(compensated - decompressed)
    return signs, server_scale
