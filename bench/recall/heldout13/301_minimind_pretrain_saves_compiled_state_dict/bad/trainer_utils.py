import os

import torch
import torch.distributed as dist
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab_size=6400, hidden_size=512, num_layers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden_size)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(hidden_size, 8, batch_first=True) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(hidden_size)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)

    def forward(self, input_ids):
        h = self.embed(input_ids)
        for block in self.blocks:
            h = block(h)
        return self.lm_head(self.norm(h))


def is_main_process():
    return not dist.is_initialized() or dist.get_rank() == 0


def init_model(hidden_size, from_weight="none", save_dir="../out", device="cuda"):
    model = TinyLM(hidden_size=hidden_size)
    if from_weight != "none":
        weight_path = f"{save_dir}/{from_weight}_{hidden_size}.pth"
        weights = torch.load(weight_path, map_location=device, weights_only=True)
        model.load_state_dict(weights)
    return model.to(device)


def init_distributed_mode():
    if int(os.environ.get("RANK", -1)) == -1:
        return 0
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank
