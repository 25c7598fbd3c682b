import torch

from denoisers import GSPnP, TinyDRUNet
from distance import L2Distance


def pnp_restore(model, y, sigma_noise, steps=5, tau=0.5):
    """Proximal-gradient PnP with the gradient-step denoiser as the prior step."""
    fidelity = L2Distance(sigma=sigma_noise)
    x = y.clone()
    for _ in range(steps):
        x = x - tau * fidelity.grad(x, y)
        with torch.no_grad():
            x = model(x, sigma_noise)
    return x


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = GSPnP(TinyDRUNet(), detach=False).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    sigma = 0.1
    for step in range(20):
        clean = torch.rand(4, 3, 32, 32, device=device)
        noisy = clean + sigma * torch.randn_like(clean)
        optimizer.zero_grad()
        loss = ((model(noisy, sigma) - clean) ** 2).mean()
        loss.backward()
        optimizer.step()
        if step % 5 == 0:
            print(step, loss.item(), model.potential(noisy, sigma).mean().item())
    model.detach = True
    restored = pnp_restore(model, noisy, sigma)
    print("restored error", ((restored - clean) ** 2).mean().item())


if __name__ == "__main__":
    main()
