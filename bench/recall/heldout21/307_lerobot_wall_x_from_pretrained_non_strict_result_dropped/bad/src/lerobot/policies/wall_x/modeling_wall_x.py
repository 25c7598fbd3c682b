import logging

import torch
import torch.nn as nn
from safetensors import SafetensorError
from safetensors.torch import load_file
from transformers.utils import cached_file

from .configuration_wall_x import WallXConfig

logger = logging.getLogger(__name__)


class ActionHead(nn.Module):
    def __init__(self, hidden_size: int, action_dim: int, chunk_size: int):
        super().__init__()
        self.chunk_size = chunk_size
        self.action_dim = action_dim
        self.proj = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.SiLU(),
                                  nn.Linear(hidden_size, chunk_size * action_dim))
        self.register_buffer("normalizer_mean", torch.zeros(action_dim))
        self.register_buffer("normalizer_std", torch.ones(action_dim))

    def forward(self, h):
        out = self.proj(h).view(h.shape[0], self.chunk_size, self.action_dim)
        return out * self.normalizer_std + self.normalizer_mean


class QwenVLMoEForAction(nn.Module):
    def __init__(self, config: WallXConfig):
        super().__init__()
        layer = nn.TransformerEncoderLayer(config.hidden_size, 8, 4 * config.hidden_size, batch_first=True)
        self.backbone = nn.TransformerEncoder(layer, config.num_layers)
        self.action_preprocessor = ActionHead(config.hidden_size, config.action_dim, config.chunk_size)

    def forward(self, tokens):
        return self.action_preprocessor(self.backbone(tokens)[:, -1])

    @classmethod
    def from_pretrained(cls, pretrained_name_or_path, config=None, revision="main", local_files_only=False):
        config = config or WallXConfig(pretrained_name_or_path=pretrained_name_or_path)
        model = cls(config)

        logger.info("Loading Wall-X model from %s", pretrained_name_or_path)
        try:
            resolved_file = cached_file(
                pretrained_name_or_path, "model.safetensors", revision=revision, local_files_only=local_files_only
            )
            sd = load_file(resolved_file)
        except (OSError, SafetensorError) as error:
            raise OSError(f"Failed to load pretrained Wall-X weights from {pretrained_name_or_path!r}") from error

        # drop the normalizer statistics: they come from the dataset, not the checkpoint
        state_dict = {}
        del_keys = [key for key in sd if "action_preprocessor.normalizer" in key]
        for key in del_keys:
            del sd[key]
        state_dict.update(sd)

        model.load_state_dict(state_dict, strict=False)  # expect: TCK403
        return model


class WallXPolicy(nn.Module):
    name = "wall_x"

    def __init__(self, config: WallXConfig):
        super().__init__()
        self.config = config
        self.model = QwenVLMoEForAction.from_pretrained(config.pretrained_name_or_path, config=config)
        self.model.to(config.device)

    @torch.no_grad()
    def select_action(self, tokens):
        self.eval()
        return self.model(tokens.to(self.config.device))[:, 0]
