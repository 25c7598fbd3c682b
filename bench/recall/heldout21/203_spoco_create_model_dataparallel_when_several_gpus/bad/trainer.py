import os

import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter


class RunningAverage:
    def __init__(self):
        self.count, self.sum, self.avg = 0, 0.0, 0.0

    def update(self, value, n=1):
        self.count += n
        self.sum += value * n
        self.avg = self.sum / self.count


class SpocoTrainer:
    def __init__(self, model, optimizer, lr_scheduler, loss_criterion, device, train_loader, val_loader,
                 checkpoint_dir, max_num_iterations, validate_after_iters, log_after_iters):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = lr_scheduler
        self.loss_criterion = loss_criterion
        self.device = device
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.checkpoint_dir = checkpoint_dir
        self.max_num_iterations = max_num_iterations
        self.validate_after_iters = validate_after_iters
        self.log_after_iters = log_after_iters
        self.writer = SummaryWriter(log_dir=os.path.join(checkpoint_dir, "logs"))
        self.num_iterations = 1
        self.best_eval_loss = float("inf")

    def fit(self):
        while not self.train():
            pass
        print(f"Reached maximum number of iterations {self.max_num_iterations}. Finishing training...")

    def train(self):
        train_losses = RunningAverage()
        self.model.train()
        for im_q, im_k, target in self.train_loader:
            im_q, im_k, target = im_q.to(self.device), im_k.to(self.device), target.to(self.device)
            emb_q, emb_k = self.model(im_q, im_k)
            loss = self.loss_criterion((emb_q, emb_k), target)
            train_losses.update(loss.item(), im_q.size(0))

            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

            if self.num_iterations % self.validate_after_iters == 0:
                self.model.eval()
                eval_loss = self.validate()
                self.model.train()
                self.scheduler.step(eval_loss)
                is_best = eval_loss < self.best_eval_loss
                self.best_eval_loss = min(eval_loss, self.best_eval_loss)
                self._save_checkpoint(is_best)

            if self.num_iterations % self.log_after_iters == 0:
                self.writer.add_scalar("train_loss_avg", train_losses.avg, self.num_iterations)

            if self.num_iterations >= self.max_num_iterations:
                return True
            self.num_iterations += 1
        return False

    @torch.no_grad()
    def validate(self):
        val_losses = RunningAverage()
        for im_q, im_k, target in self.val_loader:
            im_q, im_k, target = im_q.to(self.device), im_k.to(self.device), target.to(self.device)
            emb_q, emb_k = self.model(im_q, im_k)
            val_losses.update(self.loss_criterion((emb_q, emb_k), target).item(), im_q.size(0))
        self.writer.add_scalar("val_loss_avg", val_losses.avg, self.num_iterations)
        return val_losses.avg

    def _save_checkpoint(self, is_best):
        # remove `module` prefix from layer names when using `nn.DataParallel`
        state_dict = self.model.state_dict()
        if isinstance(self.model, nn.DataParallel):
            state_dict = self.model.module.state_dict()
        path = os.path.join(self.checkpoint_dir, "last_checkpoint.pytorch")
        torch.save({"num_iterations": self.num_iterations, "model_state_dict": state_dict,
                    "best_eval_loss": self.best_eval_loss, "optimizer_state_dict": self.optimizer.state_dict()}, path)
        if is_best:
            torch.save({"model_state_dict": state_dict}, os.path.join(self.checkpoint_dir, "best_checkpoint.pytorch"))
