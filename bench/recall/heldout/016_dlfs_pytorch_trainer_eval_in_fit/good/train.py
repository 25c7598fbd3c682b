import torch


class PyTorchTrainer:
    def __init__(self, model, optim, criterion):
        self.model = model
        self.optim = optim
        self.loss = criterion

    def fit(self, train_dataloader, test_dataloader, epochs=100, eval_every=10):
        for e in range(epochs):
            self.model.train()
            for X_batch, y_batch in train_dataloader:
                self.optim.zero_grad()
                output = self.model(X_batch)[0]
                loss = self.loss(output, y_batch)
                loss.backward()
                self.optim.step()
            if e % eval_every == 0:
                with torch.no_grad():
                    self.model.eval()
                    losses = [self.loss(self.model(X)[0], y).item() for X, y in test_dataloader]
                    print(f"epoch {e}: validation loss {sum(losses) / len(losses):.3f}")
