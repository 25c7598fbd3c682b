import torch
from packaging import version


def torch_version() -> str:
    return torch.__version__.split("+")[0]


if version.parse(torch_version()) > version.parse("1.7.1"):
    from torch.linalg import qr as linalg_qr
else:
    from torch import qr as linalg_qr

__all__ = ["linalg_qr"]
