import logging

import torch
from torch.nn.utils import clip_grad_norm_


class Trainer:
    def __init__(self, model, optimizer, tr_loader, cv_loader, accumulate_grad_batch=4,
                 grad_max_norm=5.0, label_smooth=0.1, print_interval=100):
        self.model = model.cuda()
        self.optimizer = optimizer
        self.tr_loader = tr_loader
        self.cv_loader = cv_loader
        self.accumulate_grad_batch = accumulate_grad_batch
        self.grad_max_norm = grad_max_norm
        self.label_smooth = label_smooth
        self.print_interval = print_interval
        self.epoch = 0
        self.step = 0

    def train(self, num_epochs):
        for epoch in range(num_epochs):
            self.epoch = epoch
            tr_loss = self.iter_one_epoch()
            cv_loss = self.iter_one_epoch(cross_valid=True)
            logging.info("epoch %d: train %.4f  valid %.4f", epoch, tr_loss, cv_loss)
            torch.save(self.model.state_dict(), f"checkpoint.ep{epoch}.pt")

    def iter_one_epoch(self, cross_valid=False):
        if cross_valid:
            loader = self.cv_loader
            self.model.eval()
        else:
            loader = self.tr_loader
            self.model.train()

        tot_loss = 0.
        tot_token = 0
        n_accu_batch = self.accumulate_grad_batch
        for niter, (feats, ids, labels, paddings) in enumerate(loader, start=1):
            feats, ids = feats.cuda(), ids.cuda()
            labels, paddings = labels.cuda(), paddings.cuda()
            if cross_valid:
                with torch.no_grad():
                    this_loss = self.model(feats, ids, labels, paddings)
            else:
                this_loss = self.model(feats, ids, labels, paddings, label_smooth=self.label_smooth)

            batch_loss = torch.sum(this_loss)
            n_token = torch.sum(1 - paddings).float()
            tot_loss = tot_loss + batch_loss  # expect: TCK101
            tot_token = tot_token + n_token

            if not cross_valid:
                loss = batch_loss / n_token / self.accumulate_grad_batch
                if n_accu_batch == self.accumulate_grad_batch:
                    self.optimizer.zero_grad()
                loss.backward()
                n_accu_batch -= 1
                if n_accu_batch == 0 or niter == len(loader):
                    clip_grad_norm_(self.model.parameters(), self.grad_max_norm)
                    self.optimizer.step()
                    self.step += 1
                    n_accu_batch = self.accumulate_grad_batch

            if niter % self.print_interval == 0:
                logging.info("epoch %d iter %d: avg token loss %.4f",
                             self.epoch, niter, (tot_loss / tot_token).item())

        return (tot_loss / tot_token).item()
