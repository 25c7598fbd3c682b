import torch
import torch.nn.functional as F
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def setup_model(model, mesh):
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in model.layers:
        fully_shard(layer, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)
    return model


class SFTTrainer:
    def __init__(self, model, mesh):
        self.model = setup_model(model, mesh)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-5)

    def step(self, input_ids, labels):
        logits = self.model(input_ids)
        logits = logits.float()
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.item()
