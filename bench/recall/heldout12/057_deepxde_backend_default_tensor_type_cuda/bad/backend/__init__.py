from .tensor import data_type, is_tensor, to_tensor

__all__ = ["data_type", "is_tensor", "to_tensor"]
