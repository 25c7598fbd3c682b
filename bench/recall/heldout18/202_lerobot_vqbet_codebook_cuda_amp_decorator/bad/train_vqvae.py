import torch
from torch import nn

from vq_utils import ResidualVQ


class ActionVQVAE(nn.Module):
    def __init__(self, action_dim=14, horizon=5, latent_dim=256, codebook_size=16):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(action_dim * horizon, 512), nn.ReLU(), nn.Linear(512, latent_dim)
        )
        self.vq = ResidualVQ(latent_dim, codebook_size)
        self.decoder = nn.Sequential(
            nn.Linear(latent_dim, 512), nn.ReLU(), nn.Linear(512, action_dim * horizon)
        )

    def forward(self, actions):
        z = self.encoder(actions.flatten(1))
        zq, codes, commit_loss = self.vq(z)
        recon = self.decoder(zq).view_as(actions)
        return recon, codes, commit_loss


def train(loader, steps=20000, device="cuda"):
    model = ActionVQVAE().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = 0
    while step < steps:
        for batch in loader:
            actions = batch["action"].to(device)
            recon, _, commit_loss = model(actions)
            loss = (recon - actions).abs().mean() + 0.25 * commit_loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            if step >= steps:
                break
    return model
