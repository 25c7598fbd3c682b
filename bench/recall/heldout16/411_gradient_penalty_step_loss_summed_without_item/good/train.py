import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Critic(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 256), nn.LeakyReLU(0.2),
                                 nn.Linear(256, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, critic, lr=1e-4, gp_weight=10.0, device="cuda"):
        self.critic = critic.to(device)
        self.optimizer = torch.optim.Adam(self.critic.parameters(), lr=lr, betas=(0.5, 0.9))
        self.gp_weight = gp_weight
        self.device = device

    def gradient_penalty(self, real, fake):
        alpha = torch.rand(real.size(0), 1, device=self.device)
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        scores = self.critic(mixed)
        grads, = torch.autograd.grad(scores.sum(), mixed, create_graph=True)
        return ((grads.norm(2, dim=1) - 1) ** 2).mean()

    def train_step(self, real, fake):
        self.optimizer.zero_grad()
        loss = self.critic(fake).mean() - self.critic(real).mean()
        loss = loss + self.gp_weight * self.gradient_penalty(real, fake)
        loss.backward()
        self.optimizer.step()
        return loss

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            epoch_loss = 0.0
            for real, fake in loader:
                real, fake = real.to(self.device), fake.to(self.device)
                loss = self.train_step(real, fake)
                epoch_loss += loss.item()
            print(f"epoch {epoch}: critic loss {epoch_loss / len(loader):.4f}")


def main():
    real = torch.randn(8192, 64) + 2.0
    fake = torch.randn(8192, 64)
    loader = DataLoader(TensorDataset(real, fake), batch_size=128, shuffle=True)
    Trainer(Critic()).fit(loader, epochs=50)


if __name__ == "__main__":
    main()
