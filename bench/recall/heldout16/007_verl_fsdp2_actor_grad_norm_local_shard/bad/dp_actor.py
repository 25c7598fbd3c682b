import torch
from torch.distributed.fsdp import FSDPModule

from fsdp_utils import fsdp2_clip_grad_norm_


def logprobs_from_logits(logits, labels):
    return torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(-1)).squeeze(-1)


class DataParallelPPOActor:
    def __init__(self, config, actor_module, actor_optimizer):
        self.config = config
        self.actor_module = actor_module
        self.actor_optimizer = actor_optimizer

    def _forward_micro_batch(self, micro_batch, temperature):
        response_length = micro_batch["responses"].size(-1)
        logits = self.actor_module(
            input_ids=micro_batch["input_ids"], attention_mask=micro_batch["attention_mask"]
        ).logits
        logits = logits[:, -response_length - 1 : -1, :] / temperature
        return logprobs_from_logits(logits, micro_batch["responses"])

    def _optimizer_step(self):
        if isinstance(self.actor_module, FSDPModule):
            params = list(self.actor_module.parameters())
            grad_norm = fsdp2_clip_grad_norm_(params, max_norm=self.config["grad_clip"])
        else:
            grad_norm = torch.nn.utils.clip_grad_norm_(
                self.actor_module.parameters(), max_norm=self.config["grad_clip"]
            )

        # if grad_norm is not finite, skip the update
        if not torch.isfinite(grad_norm):
            print(f"WARN: rank {torch.distributed.get_rank()} grad_norm is not finite: {grad_norm}")
            self.actor_optimizer.zero_grad()
        else:
            self.actor_optimizer.step()
        return grad_norm

    def update_policy(self, mini_batches, temperature=1.0, clip_ratio=0.2):
        self.actor_module.train()
        metrics = {"actor/pg_loss": [], "actor/grad_norm": []}
        for mini_batch in mini_batches:
            self.actor_optimizer.zero_grad()
            for micro_batch in mini_batch:
                log_prob = self._forward_micro_batch(micro_batch, temperature)
                ratio = torch.exp(log_prob - micro_batch["old_log_probs"])
                adv = micro_batch["advantages"]
                pg_losses = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - clip_ratio, 1 + clip_ratio))
                mask = micro_batch["response_mask"]
                pg_loss = (pg_losses * mask).sum() / mask.sum()
                (pg_loss / len(mini_batch)).backward()
                metrics["actor/pg_loss"].append(pg_loss.detach().item())
            grad_norm = self._optimizer_step()
            metrics["actor/grad_norm"].append(grad_norm.detach().item())  # expect: TCK213
        self.actor_optimizer.zero_grad()
        return metrics
