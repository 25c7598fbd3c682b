"""Trains a sequence model on batches drawn from a genomic sampler."""
import logging
import os

import numpy as np
import torch
from torch.autograd import Variable

logger = logging.getLogger("selene")


class TrainModel(object):
    def __init__(self, model, data_sampler, loss_criterion, optimizer_class, optimizer_kwargs,
                 batch_size, max_steps, report_stats_every_n_steps, output_dir,
                 n_validation_samples=2000, use_cuda=False):
        self.model = model
        self.sampler = data_sampler
        self.criterion = loss_criterion
        self.optimizer = optimizer_class(self.model.parameters(), **optimizer_kwargs)
        self.batch_size = batch_size
        self.max_steps = max_steps
        self.nth_step_report_stats = report_stats_every_n_steps
        self.output_dir = output_dir
        self.use_cuda = use_cuda
        self._min_loss = float("inf")
        if self.use_cuda:
            self.model.cuda()
            self.criterion.cuda()
        self._validation_data, self._all_validation_targets = \
            self.sampler.get_validation_set(self.batch_size, n_samples=n_validation_samples)

    def _get_batch(self):
        sequences, targets = self.sampler.sample(batch_size=self.batch_size)
        return sequences, targets

    def train_and_validate(self):
        for step in range(self.max_steps):
            train_loss = self.train()
            if step % self.nth_step_report_stats == 0:
                valid_loss = self.validate()
                logger.info("step %d: train %.4f valid %.4f", step, train_loss, valid_loss)
                if valid_loss < self._min_loss:
                    self._min_loss = valid_loss
                    torch.save({"step": step,
                                "state_dict": self.model.state_dict(),
                                "optimizer": self.optimizer.state_dict()},
                               os.path.join(self.output_dir, "best_model.pth.tar"))

    def train(self):
        self.model.train()
        self.sampler.set_mode("train")
        inputs, targets = self._get_batch()
        inputs = torch.from_numpy(inputs).float()
        targets = torch.from_numpy(targets).float()
        if self.use_cuda:
            inputs = inputs.cuda()
            targets = targets.cuda()

        inputs = Variable(inputs)  # expect: TCK703
        targets = Variable(targets)  # expect: TCK703

        predictions = self.model(inputs.transpose(1, 2))
        loss = self.criterion(predictions, targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _evaluate_on_data(self, data_in_batches):
        self.model.eval()
        batch_losses = []
        all_predictions = []
        for (inputs, targets) in data_in_batches:
            inputs = torch.from_numpy(inputs).float()
            targets = torch.from_numpy(targets).float()
            if self.use_cuda:
                inputs = inputs.cuda()
                targets = targets.cuda()
            with torch.no_grad():
                inputs = Variable(inputs)  # expect: TCK703
                targets = Variable(targets)  # expect: TCK703
                predictions = self.model(inputs.transpose(1, 2))
                loss = self.criterion(predictions, targets)
                all_predictions.append(predictions.data.cpu().numpy())
                batch_losses.append(loss.item())
        return np.average(batch_losses), np.vstack(all_predictions)

    def validate(self):
        average_loss, _ = self._evaluate_on_data(self._validation_data)
        return average_loss
