from __future__ import division

import logging
import os

import torch
from torch import optim
from torch.nn import CrossEntropyLoss

from evaluator import Evaluator


class SupervisedTrainer(object):
    """Trains a response-selection model with a supervised loss (default: cross-entropy)."""

    def __init__(self, expt_dir="experiment", loss_func=CrossEntropyLoss(), batch_size=64,
                 checkpoint_every=100, print_every=100):
        self.loss_func = loss_func
        self.optimizer = None
        self.checkpoint_every = checkpoint_every
        self.print_every = print_every
        self.expt_dir = os.path.abspath(expt_dir)
        os.makedirs(self.expt_dir, exist_ok=True)
        self.batch_size = batch_size
        self.evaluator = Evaluator(batch_size=self.batch_size)
        self.logger = logging.getLogger(__name__)

    def _train_batch(self, context_variable, responses_variable, target_variable, model,
                     context_lengths_variable, responses_lengths_variable):
        loss_func = self.loss_func
        outputs = model(context_variable, responses_variable, context_lengths_variable, responses_lengths_variable)
        if len(outputs.size()) == 1:
            outputs = outputs.unsqueeze(0)
        loss = loss_func(outputs, target_variable)

        model.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _train_epoches(self, data, model, n_epochs, batch_size, dev_data=None):
        device = next(model.parameters()).device
        step = 0
        for epoch in range(1, n_epochs + 1):
            model.train(True)
            epoch_loss_total, print_loss_total = 0.0, 0.0
            for batch in data.make_batches(batch_size):
                step += 1
                context, responses, target, context_lengths, responses_lengths = [t.to(device) for t in batch]
                loss = self._train_batch(context, responses, target, model, context_lengths, responses_lengths)
                print_loss_total += loss
                epoch_loss_total += loss
                if step % self.print_every == 0:
                    self.logger.info("step %d, train CrossEntropyLoss: %.4f", step, print_loss_total / self.print_every)
                    print_loss_total = 0.0

            if epoch % self.checkpoint_every == 0:
                torch.save(model.state_dict(), os.path.join(self.expt_dir, "model_%d.pt" % epoch))

            log_msg = "Finished epoch %d: train CrossEntropyLoss %.4f" % (epoch, epoch_loss_total / data.num_batches(batch_size))
            if dev_data is not None:
                dev_loss, accuracy, recall = self.evaluator.evaluate(model, dev_data)
                log_msg += ", dev CrossEntropyLoss %.4f, accuracy %.4f, recall %s" % (dev_loss, accuracy, recall)
                model.train(mode=True)
            self.logger.info(log_msg)

    def train(self, model, data, batch_size=1, num_epochs=5, dev_data=None, optimizer=None):
        if optimizer is None:
            optimizer = optim.Adam(model.parameters())
        self.optimizer = optimizer
        self.logger.info("Optimizer: %s", self.optimizer)
        self._train_epoches(data, model, num_epochs, batch_size=batch_size, dev_data=dev_data)
        return model
