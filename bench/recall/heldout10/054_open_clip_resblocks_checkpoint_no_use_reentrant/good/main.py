import argparse

import torch
import torch.nn.functional as F

from transformer import TextEncoder


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grad-checkpointing", action="store_true")
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    text_model = TextEncoder().to(device)
    if args.grad_checkpointing:
        text_model.transformer.set_grad_checkpointing(True)
    image_proj = torch.nn.Linear(512, 64).to(device)
    params = list(text_model.parameters()) + list(image_proj.parameters())
    optimizer = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.2)
    logit_scale = torch.tensor(1 / 0.07, device=device).log()

    for step in range(args.steps):
        text = torch.randint(1, 1000, (16, 32), device=device)
        image_feats = torch.randn(16, 512, device=device)
        optimizer.zero_grad()
        t = F.normalize(text_model(text), dim=-1)
        i = F.normalize(image_proj(image_feats), dim=-1)
        logits = logit_scale.exp() * i @ t.t()
        labels = torch.arange(16, device=device)
        loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
