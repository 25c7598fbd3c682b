import math

import torch
import torch.nn as nn

from flows import AffineAutoregressive, AutoRegressiveNN

DIM = 8


def build_flow(n_steps=4):
    return nn.ModuleList(AffineAutoregressive(AutoRegressiveNN(DIM, [64, 64])) for _ in range(n_steps))


def log_prob(flow, x):
    """Density of x under the flow, base N(0, I), evaluated through the inverse."""
    log_det = torch.zeros(x.shape[:-1], device=x.device)
    for step in reversed(flow):
        x = step.inverse(x)
        _, ld = step(x)
        log_det = log_det - ld
    base = -0.5 * (x ** 2).sum(-1) - 0.5 * DIM * math.log(2 * math.pi)
    return base + log_det


def sample(flow, n, device):
    z = torch.randn(n, DIM, device=device)
    for step in flow:
        z, _ = step(z)
    return z


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    data = torch.randn(4096, DIM) @ torch.randn(DIM, DIM)
    flow = build_flow().to(device)
    opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
    for step in range(2000):
        batch = data[torch.randint(0, len(data), (256,))].to(device)
        loss = -log_prob(flow, batch).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(flow.state_dict(), "flow.pt")

    # a fresh process: new random permutations, then the saved weights
    restored = build_flow().to(device)
    restored.load_state_dict(torch.load("flow.pt", weights_only=True))
    print(log_prob(restored, data[:16].to(device)))
    print(sample(restored, 4, device))


if __name__ == "__main__":
    main()
