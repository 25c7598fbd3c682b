import math

import torch


def predict(model, data, compute_loss=True, device=None, n_gpu=1, normalization="batch"):
    """Run the model over a validation set; returns scores and hypotheses."""
    model.eval()
    total_loss, total_tokens, total_correct = 0.0, 0, 0
    hypotheses = []
    for batch in data:
        batch.sort_by_src_length()
        with torch.no_grad():
            batch_loss, log_probs, _, n_correct = model(return_type="loss", **vars(batch))
            total_loss += batch.normalize(batch_loss, "sum", n_gpu).item()
            total_correct += int(n_correct)
            total_tokens += batch.ntokens
            hypotheses.extend(log_probs.argmax(-1).tolist())
    scores = {
        "loss": total_loss,
        "ppl": math.exp(total_loss / max(1, total_tokens)),
        "acc": total_correct / max(1, total_tokens),
    }
    return scores, hypotheses
