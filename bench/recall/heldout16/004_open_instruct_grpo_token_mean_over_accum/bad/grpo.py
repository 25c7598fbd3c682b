import math

import deepspeed
import torch

from model_utils import masked_mean


def token_logprobs(model, query_responses, attention_mask, temperature):
    logits = model(input_ids=query_responses, attention_mask=attention_mask).logits[:, :-1]
    logits = logits / temperature
    labels = query_responses[:, 1:]
    return torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(-1)).squeeze(-1)


class PolicyTrainer:
    def __init__(self, model, optimizer, ds_config, clip_lower=0.2, clip_higher=0.2, temperature=1.0):
        self.model, self.optimizer, _, _ = deepspeed.initialize(
            model=model, optimizer=optimizer, config=ds_config
        )
        self.clip_lower = clip_lower
        self.clip_higher = clip_higher
        self.temperature = temperature

    def train(self, query_responses, attention_masks, response_masks, old_logprobs, advantages, num_mini_batches):
        accumulation_steps = max(math.ceil(len(query_responses) / num_mini_batches - 0.5), 1)
        self.model.train()
        local_step = 0
        for i in range(len(query_responses)):
            mb_mask = response_masks[i][:, 1:].bool()
            new_logprobs = token_logprobs(
                self.model, query_responses[i], attention_masks[i], self.temperature
            )
            ratio = torch.exp(new_logprobs - old_logprobs[i])
            pg_losses = -advantages[i][:, 1:] * ratio
            pg_losses2 = -advantages[i][:, 1:] * torch.clamp(
                ratio, 1.0 - self.clip_lower, 1.0 + self.clip_higher
            )
            pg_loss_max = torch.max(pg_losses, pg_losses2)
            loss = masked_mean(pg_loss_max, mb_mask)
            loss = loss / accumulation_steps  # expect: TCK118
            self.model.backward(loss)
            if (local_step + 1) % accumulation_steps == 0:
                self.model.step()
            local_step += 1
            with torch.no_grad():
                print(f"minibatch {i} pg_loss {masked_mean(pg_loss_max, mb_mask).item():.4f}")
