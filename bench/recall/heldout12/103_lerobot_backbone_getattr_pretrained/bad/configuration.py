from dataclasses import dataclass, field


@dataclass
class DiffusionConfig:
    vision_backbone: str = "resnet18"
    use_pretrained_backbone: bool = False
    crop_shape: tuple = (84, 84)
    spatial_softmax_num_keypoints: int = 32
    horizon: int = 16
    action_dim: int = 2
    state_dim: int = 2
    down_dims: tuple = field(default_factory=lambda: (128, 256))
