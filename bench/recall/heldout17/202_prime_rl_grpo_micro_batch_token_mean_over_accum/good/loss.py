import torch
from torch import Tensor


def selective_log_softmax(logits: Tensor, index: Tensor) -> Tensor:
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    return torch.gather(logprobs, dim=-1, index=index.unsqueeze(-1)).squeeze(-1)


def _masked_sum(values: Tensor, mask: Tensor) -> Tensor:
    return (values * mask).sum()


def grpo_loss(
    logits: Tensor,
    input_ids: Tensor,
    advantages: Tensor,
    original_logprobs: Tensor,
    loss_mask: Tensor,
    temperature: float,
    epsilon: float = 0.2,
) -> tuple[Tensor, Tensor]:
    logits = logits[:, :-1, :] / temperature
    target_ids = input_ids[:, 1:]
    logprobs = selective_log_softmax(logits, target_ids)
    loss_mask = loss_mask[:, 1:]
    advantages = advantages[:, 1:]

    ratio = torch.exp(logprobs - original_logprobs)
    unclipped = -ratio * advantages
    clipped = -torch.clamp(ratio, 1 - epsilon, 1 + epsilon) * advantages
    per_token_loss = torch.max(unclipped, clipped)
    is_clipped = (unclipped < clipped).float()

    loss = _masked_sum(per_token_loss, loss_mask)
    clip_count = _masked_sum(is_clipped, loss_mask)
    return loss, clip_count
