"""PyTorch backend: tensor helpers shared by the networks and the training loop."""
import torch
from packaging.version import Version

# Use the GPU by default when one is available, like the TensorFlow backend does.
if torch.cuda.is_available():
    if Version(torch.__version__) >= Version("2.1.0"):
        torch.set_default_device("cuda")
    else:
        torch.set_default_tensor_type(torch.cuda.FloatTensor)

data_type = {"float32": torch.float32, "float64": torch.float64}


def is_tensor(obj):
    return torch.is_tensor(obj)


def to_tensor(array, dtype="float32"):
    return torch.as_tensor(array, dtype=data_type[dtype])
