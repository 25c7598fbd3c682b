from .modules import Activation

__all__ = ["Activation"]
