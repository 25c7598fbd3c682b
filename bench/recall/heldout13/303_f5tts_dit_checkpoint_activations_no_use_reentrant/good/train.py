import argparse

import torch
import torch.nn.functional as F

from dit import DiT


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint_activations", action="store_true")
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = DiT(checkpoint_activations=args.checkpoint_activations).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=7.5e-5)

    for step in range(args.steps):
        mel = torch.randn(4, 256, 100, device=device)
        cond = torch.randn(4, 256, 100, device=device)
        mask = torch.ones(4, 256, dtype=torch.bool, device=device)
        time = torch.rand(4, device=device)
        noise = torch.randn_like(mel)
        x_t = (1 - time[:, None, None]) * noise + time[:, None, None] * mel
        pred = model(x_t, cond, time, mask)
        loss = F.mse_loss(pred[mask], (mel - noise)[mask])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
