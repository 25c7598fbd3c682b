from .resnet_counter import resnet50_counter

__all__ = ["resnet50_counter"]
