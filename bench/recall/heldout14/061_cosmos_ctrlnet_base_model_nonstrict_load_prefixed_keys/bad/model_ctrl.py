import logging

import torch
from torch import nn

log = logging.getLogger(__name__)


class VideoDiT(nn.Module):
    def __init__(self, dim=256, depth=4):
        super().__init__()
        self.net = nn.ModuleDict({
            "blocks": nn.ModuleList(nn.TransformerEncoderLayer(dim, 8, batch_first=True) for _ in range(depth)),
            "final": nn.Linear(dim, dim),
        })

    def forward(self, x):
        for block in self.net["blocks"]:
            x = block(x)
        return self.net["final"](x)


def non_strict_load_model(model, state_dict):
    own = model.state_dict()
    matched = {k: v for k, v in state_dict.items() if k in own and own[k].shape == v.shape}
    own.update(matched)
    model.load_state_dict(own)
    return f"loaded {len(matched)} / {len(own)} tensors"


class CtrlNetModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.base_model = VideoDiT()
        self.ctrl_branch = VideoDiT(depth=2)
        self.base_model.requires_grad_(False)
        self.load_base_model(self.base_model)

    def load_base_model(self, base_model):
        checkpoint_path = self.config.get("base_load_from", "")
        if checkpoint_path:
            log.info("Loading base model checkpoint (local): %s", checkpoint_path)
            state_dict = torch.load(checkpoint_path, map_location="cpu", weights_only=False)
            if state_dict.get("ema") is not None:
                base_state_dict = {k.replace("-", "."): v for k, v in state_dict["ema"].items()}
            elif "model" in state_dict:
                log.warning("Using non-EMA base model")
                base_state_dict = state_dict["model"]
            else:
                base_state_dict = state_dict
            try:
                base_model.load_state_dict(base_state_dict, strict=False)  # expect: TCK403
            except Exception:
                log.critical("load model in non-strict mode")
                log.critical(non_strict_load_model(base_model, base_state_dict))
        log.info("Done loading the base model checkpoint.")

    def forward(self, x, hint):
        with torch.no_grad():
            base = self.base_model(x)
        return base + self.ctrl_branch(hint)
