from .eltwise import EltwiseAdd
from .matmul import BatchMatmul, Matmul

__all__ = ["EltwiseAdd", "Matmul", "BatchMatmul"]
