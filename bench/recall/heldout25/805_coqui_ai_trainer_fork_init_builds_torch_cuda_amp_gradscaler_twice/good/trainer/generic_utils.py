import torch
from packaging.version import Version


def is_pytorch_at_least_2_3() -> bool:
    """Check if the installed PyTorch version is 2.3 or higher."""
    return Version(torch.__version__) >= Version("2.3")


def is_pytorch_at_least_2_4() -> bool:
    """Check if the installed PyTorch version is 2.4 or higher."""
    return Version(torch.__version__) >= Version("2.4")
