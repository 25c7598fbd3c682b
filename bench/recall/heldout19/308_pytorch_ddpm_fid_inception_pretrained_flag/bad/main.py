import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from scipy import linalg

from inception import InceptionV3


class TinyUNet(nn.Module):
    def __init__(self, ch=64):
        super().__init__()
        self.temb = nn.Sequential(nn.Linear(1, ch), nn.SiLU(), nn.Linear(ch, ch))
        self.inp = nn.Conv2d(3, ch, 3, padding=1)
        self.mid = nn.Conv2d(ch, ch, 3, padding=1)
        self.out = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x, t):
        h = self.inp(x) + self.temb(t.float().unsqueeze(1) / 1000)[:, :, None, None]
        return self.out(F.silu(self.mid(F.silu(h))))


@torch.no_grad()
def inception_stats(images, inception, batch_size=50):
    feats, probs = [], []
    for i in range(0, len(images), batch_size):
        pool, prob = inception(images[i:i + batch_size])
        feats.append(pool.cpu().numpy())
        probs.append(prob.cpu().numpy())
    feats, probs = np.concatenate(feats), np.concatenate(probs)
    kl = probs * (np.log(probs + 1e-12) - np.log(probs.mean(0, keepdims=True) + 1e-12))
    inception_score = float(np.exp(kl.sum(1).mean()))
    return feats.mean(0), np.cov(feats, rowvar=False), inception_score


def fid(mu1, sigma1, mu2, sigma2):
    covmean, _ = linalg.sqrtm(sigma1.dot(sigma2), disp=False)
    return float(((mu1 - mu2) ** 2).sum() + np.trace(sigma1 + sigma2 - 2 * covmean.real))


@torch.no_grad()
def sample(model, n, device, steps=100):
    model.eval()
    x = torch.randn(n, 3, 32, 32, device=device)
    for t in reversed(range(steps)):
        tt = torch.full((n,), t, device=device, dtype=torch.long)
        x = x - model(x, tt) / steps
    model.train()
    return (x.clamp(-1, 1) + 1) / 2


def main(total_steps=10_000, eval_step=2_000, ema_decay=0.9999):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net_model = TinyUNet().to(device)
    ema_model = copy.deepcopy(net_model)
    optim = torch.optim.Adam(net_model.parameters(), lr=2e-4)
    inception = InceptionV3(use_fid_inception=True).to(device).eval()
    ref = torch.rand(500, 3, 32, 32, device=device)
    mu_ref, sigma_ref, _ = inception_stats(ref, inception)

    for step in range(1, total_steps + 1):
        x0 = torch.rand(64, 3, 32, 32, device=device) * 2 - 1
        t = torch.randint(0, 1000, (64,), device=device)
        noise = torch.randn_like(x0)
        loss = F.mse_loss(net_model(x0 + noise, t), noise)
        optim.zero_grad()
        loss.backward()
        optim.step()
        with torch.no_grad():
            for p_ema, p in zip(ema_model.parameters(), net_model.parameters()):
                p_ema.lerp_(p, 1 - ema_decay)
        if step % eval_step == 0:
            samples = sample(ema_model, 500, device)
            mu, sigma, is_score = inception_stats(samples, inception)
            print(step, "IS", is_score, "FID", fid(mu, sigma, mu_ref, sigma_ref))
            torch.save({"net_model": net_model.state_dict(), "ema_model": ema_model.state_dict(),
                        "optim": optim.state_dict(), "step": step}, "ckpt.pt")


if __name__ == "__main__":
    main()
