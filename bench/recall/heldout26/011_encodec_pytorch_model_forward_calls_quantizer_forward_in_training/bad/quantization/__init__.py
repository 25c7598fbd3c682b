from .vq import QuantizedResult, ResidualVectorQuantizer
