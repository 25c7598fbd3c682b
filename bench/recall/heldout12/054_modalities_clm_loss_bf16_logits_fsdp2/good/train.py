import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

from loss_functions import CLMCrossEntropyLoss


class TinyGPT(nn.Module):
    def __init__(self, vocab_size=1024, dim=256, n_layers=4, n_heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(dim, n_heads, 4 * dim, batch_first=True, norm_first=True)
            for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, input_ids):
        seq = input_ids.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(seq, device=input_ids.device)
        h = self.embed(input_ids)
        for block in self.blocks:
            h = block(h, src_mask=mask, is_causal=True)
        return {"logits": self.lm_head(self.norm(h))}


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    model = TinyGPT().cuda()
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in model.blocks:
        fully_shard(block, mp_policy=policy)
    fully_shard(model, mp_policy=policy)

    loss_fn = CLMCrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(100):
        tokens = torch.randint(0, 1024, (8, 129), device="cuda")
        batch = {"input_ids": tokens[:, :-1], "target_ids": tokens[:, :-1]}
        predictions = model(batch["input_ids"])
        loss = loss_fn(predictions, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 10 == 0 and dist.get_rank() == 0:
            print(step, loss.item())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
