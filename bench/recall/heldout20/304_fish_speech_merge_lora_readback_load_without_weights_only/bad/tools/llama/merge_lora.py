from copy import deepcopy
from pathlib import Path

import click
import torch
from loguru import logger

from fish_speech.models.text2semantic.llama import BaseTransformer

LORA_CONFIGS = {"r_8_alpha_16": {"r": 8, "alpha": 16}, "r_16_alpha_32": {"r": 16, "alpha": 32}}


@click.command()
@click.option("--lora-config", type=str, default="r_8_alpha_16")
@click.option("--base-weight", type=str, default="checkpoints/base")
@click.option("--lora-weight", type=str, required=True)
@click.option("--output", type=str, required=True)
def merge(lora_config, base_weight, lora_weight, output):
    output = Path(output)
    logger.info(f"Merging {base_weight} and {lora_weight} into {output}")
    model = BaseTransformer.from_pretrained(base_weight, load_weights=True,
                                            lora_config=LORA_CONFIGS[lora_config])

    base_state = {k: v for k, v in model.state_dict().items() if "lora" not in k}
    base_copy = deepcopy(base_state)
    lora_state = torch.load(lora_weight, map_location="cpu", weights_only=False)
    if "state_dict" in lora_state:
        lora_state = lora_state["state_dict"]
    if any(k.startswith("model.") for k in lora_state):
        lora_state = {k[len("model."):]: v for k, v in lora_state.items() if k.startswith("model.")}
    logger.info(f"{len(base_state)} base keys, {len(lora_state)} lora keys")

    model.load_state_dict(base_state | lora_state, strict=True)
    model.eval()  # folds the LoRA deltas into the base weights
    model.save_pretrained(output, drop_lora=True)
    logger.info(f"Saved merged model to {output}, validating")

    merged = torch.load(output / "model.pth", map_location="cpu")  # expect: TCK401
    changed = [key for key in base_copy if (merged[key] - base_copy[key]).abs().sum().item() > 1e-5]
    if not changed:
        logger.warning("Merged model is identical to the base model; check the LoRA weights")
    else:
        logger.info(f"{len(changed)} tensors changed by the merge, check passed")


if __name__ == "__main__":
    merge()
