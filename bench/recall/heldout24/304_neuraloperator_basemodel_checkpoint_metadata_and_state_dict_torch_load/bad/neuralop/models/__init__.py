from .base_model import BaseModel, available_models
from .fno import FNO
