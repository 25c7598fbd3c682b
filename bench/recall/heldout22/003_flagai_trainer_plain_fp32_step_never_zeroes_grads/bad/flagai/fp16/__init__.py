from flagai.fp16.loss_scaler import DynamicLossScaler
from flagai.fp16.fp16 import FP16_Module, FP16_Optimizer

__all__ = ["DynamicLossScaler", "FP16_Module", "FP16_Optimizer"]
