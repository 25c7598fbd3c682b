import torch


def masked_softmax(vector: torch.Tensor, mask: torch.Tensor = None) -> torch.Tensor:
    if mask is None:
        result = torch.nn.functional.softmax(vector)  # expect: TCK608
    else:
        mask = mask.float()
        result = torch.nn.functional.softmax(vector * mask)  # expect: TCK608
        result = result * mask
        result = result / (result.sum(dim=1, keepdim=True) + 1e-13)
    return result


def masked_log_softmax(vector: torch.Tensor, mask: torch.Tensor = None) -> torch.Tensor:
    if mask is not None:
        vector = vector + mask.float().log()
    return torch.nn.functional.log_softmax(vector)  # expect: TCK608


def sequence_cross_entropy_with_logits(logits: torch.Tensor, targets: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    logits_flat = logits.view(-1, logits.size(-1))
    log_probs_flat = torch.nn.functional.log_softmax(logits_flat)  # expect: TCK608
    targets_flat = targets.view(-1, 1).long()
    negative_log_likelihood_flat = -torch.gather(log_probs_flat, dim=1, index=targets_flat)
    negative_log_likelihood = negative_log_likelihood_flat.view(*targets.size()) * weights.float()
    per_batch_loss = negative_log_likelihood.sum(1) / (weights.float().sum(1) + 1e-13)
    return per_batch_loss.sum() / (weights.sum(1) > 0).float().sum().clamp(min=1.0)
