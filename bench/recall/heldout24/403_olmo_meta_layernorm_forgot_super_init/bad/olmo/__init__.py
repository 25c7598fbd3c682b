from .model import LayerNorm, Olmo
