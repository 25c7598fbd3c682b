from .selfattention import SABlock
from .transformerblock import TransformerBlock
