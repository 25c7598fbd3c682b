from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn

from model import GPT


class LLM(nn.Module):
    """High-level wrapper: load a checkpoint directory and generate text."""

    def __init__(self, checkpoint_dir, config=None):
        super().__init__()
        self.checkpoint_dir = Path(checkpoint_dir)
        self.config = config or {}
        self.model = None

    def distribute(self, device="cuda", strategy="auto"):
        with torch.device("meta"):
            model = GPT(**self.config)
        model.eval()
        path = self.checkpoint_dir / "lit_model.pth"

        if strategy == "sequential":
            state_dict = torch.load(str(path), mmap=True, map_location="cpu", weights_only=False)
            model.load_state_dict(state_dict, assign=True)
            model = model.to(device)
        else:
            world_size = dist.get_world_size() if dist.is_initialized() else 1
            rank = dist.get_rank() if dist.is_initialized() else 0
            # load one rank at a time to bound host memory
            for current in range(world_size):
                if current == rank:
                    state_dict = torch.load(str(path), mmap=True, map_location="cpu", weights_only=False)
                    model.load_state_dict(state_dict, assign=True)
                    model = model.to(device)
                if dist.is_initialized():
                    dist.barrier()
        self.model = model
        return self

    @torch.inference_mode()
    def generate(self, idx, max_new_tokens=32, temperature=0.8):
        for _ in range(max_new_tokens):
            logits = self.model(idx[:, -self.model.block_size:])[:, -1] / temperature
            next_token = torch.multinomial(torch.softmax(logits, dim=-1), 1)
            idx = torch.cat([idx, next_token], dim=1)
        return idx


if __name__ == "__main__":
    llm = LLM("checkpoints/tiny").distribute(device="cuda" if torch.cuda.is_available() else "cpu")
    print(llm.generate(torch.zeros(1, 1, dtype=torch.long)))
