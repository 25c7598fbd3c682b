from .build import build_model
