import torch


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, accelerator, args):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.accelerator = accelerator
        self.args = args

    def compute_loss(self, model, inputs):
        return model(**inputs).loss

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        del inputs
        self.accelerator.backward(loss)
        return loss.detach()

    def _inner_training_loop(self, train_dataloader):
        for epoch in range(self.args.num_train_epochs):
            for step, inputs in enumerate(train_dataloader):
                tr_loss_step = self.training_step(self.model, inputs)
                self.optimizer.step()
                self.lr_scheduler.step()
                self.model.zero_grad()
