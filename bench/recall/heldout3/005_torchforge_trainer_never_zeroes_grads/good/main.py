import torch


class Trainer:
    def __init__(self, model, loss_fn, lr, steps):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: min(1.0, (s + 1) / 100))
        self.steps = steps

    def train_step(self, batch):
        labels = batch.pop("labels")
        logits = self.model(**batch)
        loss = self.loss_fn(logits, labels)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.lr_scheduler.step()
        return loss.item()

    def train(self, dataloader):
        self.model.train()
        data_iter = iter(dataloader)
        for step in range(self.steps):
            batch = next(data_iter)
            loss = self.train_step(batch)
            if step % 10 == 0:
                print(f"step {step} loss {loss:.4f}")
