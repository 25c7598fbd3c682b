import logging

import torch

logger = logging.getLogger("UNet3DTrainer")


class RunningAverage:
    def __init__(self):
        self.count = 0
        self.sum = 0.0
        self.avg = 0.0

    def update(self, value, n=1):
        self.count += n
        self.sum += value * n
        self.avg = self.sum / self.count


class UNet3DTrainer:
    def __init__(self, model, optimizer, loss_criterion, eval_criterion, device, loaders,
                 max_num_epochs=2, validate_after_iters=4):
        self.model = model
        self.optimizer = optimizer
        self.loss_criterion = loss_criterion
        self.eval_criterion = eval_criterion
        self.device = device
        self.loaders = loaders
        self.max_num_epochs = max_num_epochs
        self.validate_after_iters = validate_after_iters
        self.num_iterations = 1
        self.best_eval_score = float("-inf")

    def fit(self):
        for _ in range(self.max_num_epochs):
            self.train(self.loaders["train"])

    def train(self, train_loader):
        train_losses = RunningAverage()
        self.model.train()
        for t in train_loader:
            input, target = self._split_training_batch(t)
            output, loss = self._forward_pass(input, target)
            train_losses.update(loss.item(), input.size(0))

            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

            if self.num_iterations % self.validate_after_iters == 0:
                eval_score = self.validate(self.loaders["val"])
                if eval_score > self.best_eval_score:
                    self.best_eval_score = eval_score
                    torch.save({"model_state_dict": self.model.state_dict(),
                                "optimizer_state_dict": self.optimizer.state_dict()}, "best_checkpoint.pytorch")
            self.num_iterations += 1
        logger.info("train loss %.4f", train_losses.avg)

    def validate(self, val_loader):
        val_losses = RunningAverage()
        val_scores = RunningAverage()
        with torch.no_grad():
            for t in val_loader:
                input, target = self._split_training_batch(t)
                output, loss = self._forward_pass(input, target)  # expect: TCK114
                val_losses.update(loss.item(), input.size(0))
                eval_score = self.eval_criterion(output, target)
                val_scores.update(eval_score.item(), input.size(0))
        logger.info("validation loss %.4f score %.4f", val_losses.avg, val_scores.avg)
        return val_scores.avg

    def _split_training_batch(self, t):
        input, target = t
        return input.to(self.device), target.to(self.device)

    def _forward_pass(self, input, target):
        output = self.model(input)
        loss = self.loss_criterion(output, target)
        return output, loss
