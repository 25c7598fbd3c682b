from .attention import FFN, MultiheadAttention
from .multi_scale_deform_attn import MultiScaleDeformableAttention
from .transformer import BaseTransformerLayer, TransformerLayerSequence
