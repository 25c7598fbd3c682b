import torch


class Trainer:
    def __init__(self, model, train_loader, config):
        self.model = model
        self.train_loader = train_loader
        self.config = config
        self.optimizer = torch.optim.AdamW(
            [p for p in model.parameters() if p.requires_grad], lr=config.learning_rate
        )

    def train_step(self, batch):
        outputs = self.model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=batch["labels"])
        loss = outputs.loss
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train(self):
        self.model.train()
        for epoch in range(self.config.num_epochs):
            for step, batch in enumerate(self.train_loader):
                loss = self.train_step(batch)  # expect: TCK102
                if step % self.config.log_every == 0:
                    print(f"epoch {epoch} step {step} loss {loss:.4f}")
