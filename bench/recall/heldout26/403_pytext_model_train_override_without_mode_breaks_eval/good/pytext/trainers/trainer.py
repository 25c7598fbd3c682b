import torch

from pytext.common.constants import Stage


class Trainer:
    """Runs epochs of training and evaluation over batches of (tokens, labels)."""

    def __init__(self, epochs: int = 3, lr: float = 1e-3) -> None:
        self.epochs = epochs
        self.lr = lr

    def train(self, train_iter, eval_iter, model):
        optimizer = torch.optim.Adam(model.parameters(), lr=self.lr)
        best_acc = 0.0
        for epoch in range(self.epochs):
            model.train()
            for tokens, labels in train_iter:
                logit = model(tokens)
                loss = model.get_loss(logit, labels, context=None)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            model.eval(Stage.EVAL)
            best_acc = max(best_acc, self.evaluate(eval_iter, model))
        return model, best_acc

    @torch.no_grad()
    def evaluate(self, data_iter, model) -> float:
        correct = total = 0
        for tokens, labels in data_iter:
            preds, _ = model.get_pred(model(tokens), labels, context=None)
            correct += (preds == labels).sum().item()
            total += labels.numel()
        return correct / max(total, 1)
