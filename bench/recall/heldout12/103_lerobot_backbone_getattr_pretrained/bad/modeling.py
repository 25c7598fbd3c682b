import torch
import torchvision
from torch import nn

from configuration import DiffusionConfig


class RgbEncoder(nn.Module):
    def __init__(self, config: DiffusionConfig):
        super().__init__()
        backbone_model = getattr(torchvision.models, config.vision_backbone)(pretrained=config.use_pretrained_backbone)  # expect: TCK909
        self.backbone = nn.Sequential(*list(backbone_model.children())[:-2])
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.out = nn.Linear(512, 64)

    def forward(self, x):
        features = self.pool(self.backbone(x)).flatten(1)
        return torch.relu(self.out(features))


class DiffusionPolicy(nn.Module):
    def __init__(self, config: DiffusionConfig):
        super().__init__()
        self.config = config
        self.rgb_encoder = RgbEncoder(config)
        self.denoiser = nn.Sequential(
            nn.Linear(64 + config.state_dim + config.action_dim * config.horizon, 256),
            nn.Mish(),
            nn.Linear(256, config.action_dim * config.horizon),
        )

    def forward(self, image, state, noisy_actions):
        cond = torch.cat([self.rgb_encoder(image), state, noisy_actions.flatten(1)], dim=-1)
        return self.denoiser(cond).view(-1, self.config.horizon, self.config.action_dim)


if __name__ == "__main__":
    cfg = DiffusionConfig(use_pretrained_backbone=True)
    policy = DiffusionPolicy(cfg)
    out = policy(torch.randn(2, 3, 84, 84), torch.randn(2, 2), torch.randn(2, 16, 2))
    print(out.shape)
