"""A ViT backbone for multispectral satellite imagery, with optional pretrained weights."""
import logging

import torch
import torch.nn as nn
from timm.models.vision_transformer import VisionTransformer

logger = logging.getLogger(__name__)

DEFAULT_BANDS = ["BLUE", "GREEN", "RED", "NIR_NARROW", "SWIR_1", "SWIR_2"]


def checkpoint_filter_fn(state_dict: dict, model: nn.Module) -> dict:
    """Keeps the encoder weights of a masked-autoencoder checkpoint that fit `model`."""
    if "model" in state_dict:
        state_dict = state_dict["model"]
    own = model.state_dict()
    clean = {}
    for k, v in state_dict.items():
        k = k.replace("encoder.", "")
        if k.startswith("decoder") or k == "mask_token":
            continue
        if k in own and own[k].shape == v.shape:
            clean[k] = v
        else:
            logger.warning("skipping %s", k)
    return clean


def prithvi_vit_100(pretrained: bool = False, ckpt_path: str | None = None,
                    bands: list[str] | None = None, img_size: int = 224) -> nn.Module:
    bands = bands or DEFAULT_BANDS
    model = VisionTransformer(img_size=img_size, patch_size=16, in_chans=len(bands),
                              embed_dim=768, depth=12, num_heads=12, num_classes=0)
    if pretrained:
        if ckpt_path is None:
            raise ValueError("pretrained=True needs ckpt_path")
        checkpoint_model = torch.load(ckpt_path, map_location="cpu", weights_only=True)
        state_dict = checkpoint_filter_fn(checkpoint_model, model)
        missing, unexpected = model.load_state_dict(state_dict, strict=False)
        logger.info("missing %s unexpected %s", missing, unexpected)
    return model
