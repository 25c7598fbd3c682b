"""PyTorch backend: tensor helpers shared by the networks and the training loop."""
import torch

# Use the GPU by default when one is available, like the TensorFlow backend does.
if torch.cuda.is_available():
    torch.set_default_tensor_type(torch.cuda.FloatTensor)  # expect: TCK903

data_type = {"float32": torch.float32, "float64": torch.float64}


def is_tensor(obj):
    return torch.is_tensor(obj)


def to_tensor(array, dtype="float32"):
    return torch.as_tensor(array, dtype=data_type[dtype])
