from .resnet_encoder import ResnetEncoder

__all__ = ["ResnetEncoder"]
