"""Loss helpers for the conditional-computation experiments (GPT / BERT objectives under float16 autocast)."""
import torch
import torch.nn.functional as F


def calculate_llm_loss(input_tokens, gt_tokens, mask, model, mixed_precision, vocab_size):
    with torch.autocast(device_type="cuda", enabled=mixed_precision, dtype=torch.float16):
        logits = model(input_tokens)
        per_token = F.cross_entropy(logits.reshape(-1, vocab_size), gt_tokens.reshape(-1), reduction="none")
        loss = (per_token * mask.reshape(-1)).sum() / mask.sum()
    return loss


def make_loss_function(model_type):
    if model_type == "gpt":
        def loss_fn(batch, model, mixed_precision, vocab_size):
            return calculate_llm_loss(batch.tokens, batch.target_tokens, batch.non_padded_mask, model,
                                      mixed_precision, vocab_size)
    elif model_type == "bert":
        def loss_fn(batch, model, mixed_precision, vocab_size):
            return calculate_llm_loss(batch.masked_tokens, batch.tokens, batch.mask_mask, model,
                                      mixed_precision, vocab_size)
    else:
        raise NotImplementedError(f"Model type {model_type} not implemented")
    return loss_fn
