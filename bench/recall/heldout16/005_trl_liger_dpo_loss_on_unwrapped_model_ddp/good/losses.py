import torch
import torch.nn.functional as F


def fused_linear_dpo_loss(hidden, lm_head_weight, labels, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    """Sequence log-probs from the last hidden states and the LM head, then the DPO loss.

    The batch holds the chosen completions in its first half and the rejected ones in the second.
    """
    logits = hidden @ lm_head_weight.t()
    logps = torch.gather(logits.log_softmax(-1), 2, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    logps = (logps * (labels != -100)).sum(-1)
    chosen, rejected = logps.chunk(2)
    margin = beta * ((chosen - ref_chosen_logps) - (rejected - ref_rejected_logps))
    return -F.logsigmoid(margin).mean()
