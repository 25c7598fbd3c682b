from .base import FlowModel
from .importance import ImportanceFlowModel

__all__ = ["FlowModel", "ImportanceFlowModel"]
