from __future__ import division

import torch
from torch.nn import CrossEntropyLoss


class Evaluator(object):
    """Evaluates a model on a dataset: loss, accuracy and recall@k of the true response."""

    def __init__(self, loss_func=CrossEntropyLoss(), batch_size=64):
        self.loss_func = loss_func
        self.batch_size = batch_size

    def evaluate(self, model, data):
        model.eval()
        device = next(model.parameters()).device
        loss, match, total = 0.0, 0, 0
        recall = {"@1": 0, "@2": 0, "@5": 0}
        with torch.no_grad():
            for batch in data.make_batches(self.batch_size):
                context, responses, target, context_lengths, responses_lengths = [t.to(device) for t in batch]
                outputs = model(context, responses, context_lengths, responses_lengths)
                if len(outputs.size()) == 1:
                    outputs = outputs.unsqueeze(0)
                loss += self.loss_func(outputs, target).item()

                ranking = outputs.argsort(dim=1, descending=True)
                ranks = (ranking == target.unsqueeze(1)).nonzero()[:, 1]
                match += int((ranks == 0).sum())
                recall["@2"] += int((ranks < 2).sum())
                recall["@5"] += int((ranks < 5).sum())
                total += target.size(0)
        recall["@1"] = match
        accuracy = match / total if total else float("nan")
        return loss, accuracy, {k: v / max(total, 1) for k, v in recall.items()}
