import torch
from torch import nn

import tools
from networks import RSSM


class WorldModel(nn.Module):
    """Encoder, RSSM dynamics and a two-hot reward head, trained on replayed sequences."""

    def __init__(self, obs_dim, num_actions, device, embed=256, stoch=32, discrete=32, deter=512):
        super().__init__()
        self._device = device
        self.encoder = nn.Sequential(nn.Linear(obs_dim, embed), nn.SiLU())
        self.dynamics = RSSM(stoch=stoch, deter=deter, discrete=discrete, num_actions=num_actions, embed=embed,
                             device=device)
        feat_dim = stoch * discrete + deter
        self.decoder = nn.Linear(feat_dim, obs_dim)
        self.reward = nn.Linear(feat_dim, 255)
        self.to(device)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=1e-4, eps=1e-8)

    def train_step(self, data):
        embed = self.encoder(data["obs"])
        post, prior = self.dynamics.observe(embed, data["action"], data["is_first"])
        feat = self.dynamics.get_feat(post)
        recon_loss = (self.decoder(feat) - data["obs"]).pow(2).sum(-1).mean()
        reward_dist = tools.DiscDist(logits=self.reward(feat), device=self._device)
        reward_loss = -reward_dist.log_prob(data["reward"]).mean()
        kl = torch.distributions.kl_divergence(
            self.dynamics.get_dist({k: v.detach() for k, v in post.items() if k == "logit"}),
            self.dynamics.get_dist({k: v for k, v in prior.items() if k == "logit"}),
        ).mean()
        loss = recon_loss + reward_loss + 0.5 * kl
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.parameters(), 1000.0)
        self.optimizer.step()
        return {"loss": loss.detach(), "kl": kl.detach()}


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    wm = WorldModel(obs_dim=64, num_actions=6, device=device)
    for step in range(100):
        batch = {
            "obs": torch.randn(16, 32, 64, device=device),
            "action": nn.functional.one_hot(torch.randint(0, 6, (16, 32), device=device), 6).float(),
            "is_first": torch.zeros(16, 32, device=device),
            "reward": torch.randn(16, 32, device=device),
        }
        batch["is_first"][:, 0] = 1.0
        metrics = wm.train_step(batch)
