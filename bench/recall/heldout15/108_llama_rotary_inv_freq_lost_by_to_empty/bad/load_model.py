import argparse

import accelerate
import torch

from modeling_llama import LlamaConfig, LlamaForCausalLM


def load_llama(checkpoint_path, device):
    config = LlamaConfig()
    with accelerate.init_empty_weights():
        model = LlamaForCausalLM(config)
    model.to_empty(device=device)  # expect: TCK612
    state_dict = torch.load(checkpoint_path, map_location=device, weights_only=True)
    model.load_state_dict(state_dict)
    return model


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    args = parser.parse_args()
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = load_llama(args.checkpoint, device).eval()
    with torch.no_grad():
        logits = model(torch.randint(0, 32000, (1, 16), device=device))
    print(logits.float().log_softmax(-1).max(-1).values.mean().item())
