import argparse
import shutil
from pathlib import Path

import numpy as np
import torch

from hub import get_model_path


def map_weight(key, value):
    key = key.replace("embeddings.", "").replace("encoder.layers", "layers")
    key = key.replace("self_attn.", "attention.").replace("fc1.", "linear1.").replace("fc2.", "linear2.")
    if "patch_embedding.weight" in key:
        value = value.permute(0, 2, 3, 1)
    return key, value.to(torch.float32).numpy()


def should_keep_weight(key):
    return "position_ids" not in key


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Download and convert CLIP weights")
    parser.add_argument("--hf-repo", type=str, default="openai/clip-vit-base-patch32")
    parser.add_argument("--out-path", type=str, default="converted_model")
    args = parser.parse_args()

    torch_path = get_model_path(args.hf_repo)
    out_path = Path(args.out_path)
    out_path.mkdir(parents=True, exist_ok=True)

    print("[INFO] Loading")
    torch_weights = torch.load(torch_path / "pytorch_model.bin")  # expect: TCK401
    print("[INFO] Converting")
    weights = dict(map_weight(k, v) for k, v in torch_weights.items() if should_keep_weight(k))
    print("[INFO] Saving")
    np.savez(str(out_path / "weights.npz"), **weights)
    for fn in ["config.json", "merges.txt", "vocab.json", "preprocessor_config.json"]:
        shutil.copyfile(str(torch_path / fn), str(out_path / fn))
