import torch


class SimpleTrainer:
    def __init__(self, model, optimizer, lr_scheduler, data):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.data = data

    def run(self, start_epoch, epochs):
        for this_epoch in range(start_epoch, epochs):
            self.model.train()
            for this_iter, batch in enumerate(self.data.train_loader, 0):
                inputs, targets = batch
                loss = self.model.get_loss(self.model(inputs.cuda()), targets.cuda())
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.lr_scheduler.step()
