from .megatron_fsdp import MegatronFSDP
from .fully_shard import fully_shard_model

__all__ = ["MegatronFSDP", "fully_shard_model"]
