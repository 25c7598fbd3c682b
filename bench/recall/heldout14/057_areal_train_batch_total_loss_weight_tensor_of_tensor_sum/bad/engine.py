from typing import Any, Callable, Dict, List

import torch
import torch.distributed as dist


class MicroBatchList:
    def __init__(self, mbs: List[Dict[str, torch.Tensor]]):
        self.mbs = mbs


class TrainEngine:
    def __init__(self, model: torch.nn.Module, lr: float = 1e-5, mb_size: int = 2):
        self.model = model
        self.mb_size = mb_size
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def prepare_mb_list(self, input_: Dict[str, torch.Tensor]) -> MicroBatchList:
        n = input_["input_ids"].shape[0]
        return MicroBatchList(
            [{k: v[i : i + self.mb_size] for k, v in input_.items()} for i in range(0, n, self.mb_size)]
        )

    def train_batch(
        self,
        input_: Dict[str, Any],
        loss_fn: Callable[[torch.Tensor, Dict[str, Any]], torch.Tensor],
        loss_weight_fn: Callable[[Dict[str, Any]], float],
    ) -> Dict[str, float]:
        self.optimizer.zero_grad()
        mb_list = self.prepare_mb_list(input_)

        total_loss_weight = torch.tensor(  # expect: TCK704
            sum([loss_weight_fn(mb) for mb in mb_list.mbs]), dtype=torch.float32
        )
        assert total_loss_weight != 0
        if dist.is_initialized():
            dist.all_reduce(total_loss_weight)

        total = 0.0
        for mb in mb_list.mbs:
            logits = self.model(mb["input_ids"])
            loss = loss_fn(logits, mb) * (loss_weight_fn(mb) / total_loss_weight)
            loss.backward()
            total += loss.item()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return {"loss": total, "grad_norm": grad_norm.item()}
