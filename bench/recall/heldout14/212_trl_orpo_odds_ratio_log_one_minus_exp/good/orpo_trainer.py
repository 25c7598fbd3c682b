from typing import Dict, Tuple

import torch
import torch.nn.functional as F
from transformers import Trainer


class ORPOTrainer(Trainer):
    """Odds-ratio preference optimisation on top of the Hugging Face Trainer."""

    def __init__(self, *args, beta: float = 0.1, **kwargs):
        super().__init__(*args, **kwargs)
        self.beta = beta

    @staticmethod
    def get_batch_logps(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        labels = labels[:, 1:].clone()
        logits = logits[:, :-1, :]
        loss_mask = labels != -100
        labels[labels == -100] = 0
        per_token = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(2)).squeeze(2)
        return (per_token * loss_mask).sum(-1) / loss_mask.sum(-1)

    def odds_ratio_loss(
        self, policy_chosen_logps: torch.Tensor, policy_rejected_logps: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        # log odds(y|x) = log p - log(1 - p), with average log-probs as log p
        log_odds = (policy_chosen_logps - policy_rejected_logps) - (
            torch.log1p(-torch.exp(policy_chosen_logps))
            - torch.log1p(-torch.exp(policy_rejected_logps))
        )
        ratio = F.logsigmoid(log_odds)
        return self.beta * ratio, log_odds

    def compute_loss(self, model, inputs: Dict[str, torch.Tensor], return_outputs=False, **kwargs):
        n = inputs["chosen_input_ids"].shape[0]
        input_ids = torch.cat([inputs["chosen_input_ids"], inputs["rejected_input_ids"]])
        attention_mask = torch.cat([inputs["chosen_attention_mask"], inputs["rejected_attention_mask"]])
        labels = torch.cat([inputs["chosen_labels"], inputs["rejected_labels"]])
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
        logps = self.get_batch_logps(logits, labels)
        chosen_logps, rejected_logps = logps[:n], logps[n:]
        nll_loss = F.cross_entropy(
            logits[:n, :-1].flatten(0, 1), inputs["chosen_labels"][:, 1:].flatten(), ignore_index=-100
        )
        or_losses, log_odds = self.odds_ratio_loss(chosen_logps, rejected_logps)
        loss = nll_loss - or_losses.mean()
        return (loss, {"log_odds": log_odds}) if return_outputs else loss
