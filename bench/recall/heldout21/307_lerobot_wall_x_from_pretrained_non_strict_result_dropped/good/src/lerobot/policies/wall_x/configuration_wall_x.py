from dataclasses import dataclass


@dataclass
class WallXConfig:
    pretrained_name_or_path: str | None = None
    hidden_size: int = 512
    num_layers: int = 4
    action_dim: int = 14
    chunk_size: int = 32
    device: str = "cuda"
