import os

import torch
from transformers import TrainerCallback
from transformers.utils import WEIGHTS_NAME

from valuehead import V_HEAD_WEIGHTS_NAME


def fix_valuehead_checkpoint(model, output_dir: str, safe_serialization: bool) -> None:
    """Split the saved checkpoint of a model with a value head into the decoder and the head."""
    if safe_serialization:
        from safetensors import safe_open
        from safetensors.torch import save_file

        path_to_checkpoint = os.path.join(output_dir, "model.safetensors")
        with safe_open(path_to_checkpoint, framework="pt", device="cpu") as f:
            state_dict = {key: f.get_tensor(key) for key in f.keys()}
    else:
        path_to_checkpoint = os.path.join(output_dir, WEIGHTS_NAME)
        state_dict = torch.load(path_to_checkpoint, map_location="cpu", weights_only=True)

    os.remove(path_to_checkpoint)
    decoder_state_dict, v_head_state_dict = {}, {}
    for name, param in state_dict.items():
        if name.startswith("v_head."):
            v_head_state_dict[name] = param
        else:
            decoder_state_dict[name.replace("pretrained_model.", "", 1)] = param

    model.pretrained_model.save_pretrained(
        output_dir, state_dict=decoder_state_dict or None, safe_serialization=safe_serialization
    )
    if safe_serialization:
        save_file(v_head_state_dict, os.path.join(output_dir, "value_head.safetensors"), metadata={"format": "pt"})
    else:
        torch.save(v_head_state_dict, os.path.join(output_dir, V_HEAD_WEIGHTS_NAME))


class FixValueHeadModelCallback(TrainerCallback):
    """Re-saves reward-model checkpoints so the value head lives in its own file."""

    def on_save(self, args, state, control, **kwargs):
        if args.should_save:
            output_dir = os.path.join(args.output_dir, f"checkpoint-{state.global_step}")
            fix_valuehead_checkpoint(
                model=kwargs.pop("model"), output_dir=output_dir, safe_serialization=args.save_safetensors
            )
