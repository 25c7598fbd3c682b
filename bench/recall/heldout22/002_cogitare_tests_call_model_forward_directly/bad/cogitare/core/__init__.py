from cogitare.core.plugin_interface import PluginInterface
from cogitare.core.model import Model
from cogitare.core.sequential_model import SequentialModel

__all__ = ["Model", "SequentialModel", "PluginInterface"]
