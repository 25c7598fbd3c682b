import torch
import torch.nn as nn
import torch.optim as optim

from loss import Loss


class Trainer:
    def __init__(self, args, loader_train, model):
        self.args = args
        self.loader_train = loader_train
        self.model = model
        self.loss = Loss(args)
        self.device = torch.device("cpu" if args.cpu else "cuda")
        self.model.to(self.device)
        self.loss.to(self.device)
        self.optimizer = optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
        self.scheduler = optim.lr_scheduler.StepLR(self.optimizer, step_size=args.lr_decay, gamma=0.5)
        self.error_last = 1e8

    def train(self, epoch):
        self.loss.start_log()
        self.model.train()
        for batch, (lr, hr) in enumerate(self.loader_train):
            lr, hr = lr.to(self.device), hr.to(self.device)
            self.optimizer.zero_grad()
            sr = self.model(lr)
            loss = self.loss(sr, hr)
            if loss.item() < self.args.skip_threshold * self.error_last:
                loss.backward()
                self.optimizer.step()
            else:
                print("Skip this batch {}! (Loss: {})".format(batch + 1, loss.item()))
            if (batch + 1) % self.args.print_every == 0:
                print("[epoch {} {}/{}]\t{}".format(epoch, (batch + 1) * self.args.batch_size,
                                                    len(self.loader_train.dataset), self.loss.display_loss(batch)))
        self.loss.end_log(len(self.loader_train))
        self.error_last = self.loss.log[-1, -1]
        self.scheduler.step()
        self.loss.step()
