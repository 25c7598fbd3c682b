import torch

from model import LanguageModel


class Trainer:
    """Small trainer with native mixed precision and optional gradient clipping."""

    def __init__(self, model, optimizer, gradient_clip_val=1.0, device="cuda"):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.gradient_clip_val = gradient_clip_val
        self.device = device
        self.scaler = torch.amp.GradScaler("cuda")

    def _backward(self, loss):
        self.scaler.scale(loss).backward()

    def _clip_gradients(self):
        if self.gradient_clip_val is None:
            return
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.gradient_clip_val)  # expect: TCK305

    def _pre_optimizer_step(self):
        self.scaler.unscale_(self.optimizer)

    def _optimizer_step(self):
        self._pre_optimizer_step()
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def training_step(self, tokens, targets):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = self.model.loss(tokens, targets)
        self._backward(loss)
        self._clip_gradients()
        self._optimizer_step()
        return loss.detach()

    def fit(self, loader, epochs):
        self.model.train()
        for epoch in range(epochs):
            for tokens, targets in loader:
                tokens, targets = tokens.to(self.device), targets.to(self.device)
                loss = self.training_step(tokens, targets)
            print(f"epoch {epoch}: last loss {loss.item():.4f}")


if __name__ == "__main__":
    model = LanguageModel()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    data = [(torch.randint(0, 32000, (8, 128)), torch.randint(0, 32000, (8, 128))) for _ in range(10)]
    Trainer(model, optimizer, gradient_clip_val=1.0).fit(data, epochs=2)
