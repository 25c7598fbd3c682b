import torch.nn as nn

from FLAlgorithms.users.userbase import User


class UserAVG(User):
    """FedAvg client: a few local epochs of SGD on its own split."""

    def train(self, epochs):
        for _ in range(1, self.local_epochs + 1):
            self.model.train()
            for x, y in self.trainloader:
                x, y = x.to(self.device), y.to(self.device)
                self.optimizer.zero_grad()
                logits = self.model(x)["output"]
                loss = self.loss(logits, y)
                loss.backward()
                nn.utils.clip_grad_norm_(self.model.parameters(), 100)
                self.optimizer.step()
        return 0
