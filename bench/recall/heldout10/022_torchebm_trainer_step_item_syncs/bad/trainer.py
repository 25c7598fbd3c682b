import torch
import torch.nn as nn


class EnergyModel(nn.Module):
    def __init__(self, dim=2, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class LangevinSampler:
    def __init__(self, model, step_size=1e-2, n_steps=20):
        self.model, self.step_size, self.n_steps = model, step_size, n_steps

    def sample(self, x):
        x = x.clone().requires_grad_(True)
        for _ in range(self.n_steps):
            grad = torch.autograd.grad(self.model(x).sum(), x)[0]
            x = (x - self.step_size * grad + (2 * self.step_size) ** 0.5 * torch.randn_like(x)).detach().requires_grad_(True)
        return x.detach()


class BaseTrainer:
    def __init__(self, model, sampler, lr=1e-3, device="cuda"):
        self.model = model.to(device)
        self.sampler = sampler
        self.device = device
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)

    def train_step(self, batch):
        pos = batch.to(self.device)
        neg = self.sampler.sample(torch.randn_like(pos))
        pos_energy = self.model(pos)
        neg_energy = self.model(neg)
        loss = pos_energy.mean() - neg_energy.mean() + 0.1 * (pos_energy.pow(2).mean() + neg_energy.pow(2).mean())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {
            "loss": loss.item(),  # expect: TCK205
            "pos_energy": pos_energy.mean().item(),  # expect: TCK205
            "neg_energy": neg_energy.mean().item(),  # expect: TCK205
        }

    def fit(self, loader, epochs=10, log_every=100):
        step = 0
        for epoch in range(epochs):
            for batch in loader:
                metrics = self.train_step(batch)
                if step % log_every == 0:
                    print(f"epoch {epoch} step {step}: " + ", ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
                step += 1


if __name__ == "__main__":
    data = torch.randn(10000, 2) * 0.5 + torch.tensor([1.0, -1.0])
    loader = torch.utils.data.DataLoader(data, batch_size=256, shuffle=True)
    model = EnergyModel()
    BaseTrainer(model, LangevinSampler(model)).fit(loader)
