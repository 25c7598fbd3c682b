from .affine_autoregressive import AffineAutoregressive
from .auto_reg_nn import AutoRegressiveNN

__all__ = ["AffineAutoregressive", "AutoRegressiveNN"]
