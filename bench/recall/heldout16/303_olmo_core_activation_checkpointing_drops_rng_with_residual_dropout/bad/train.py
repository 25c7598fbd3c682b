import argparse

import torch
import torch.nn.functional as F

from model import Transformer, TransformerConfig


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--residual-dropout", type=float, default=0.1)
    parser.add_argument("--activation-checkpointing", action="store_true")
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    config = TransformerConfig(residual_dropout=args.residual_dropout)
    model = Transformer(config).to(device)
    if args.activation_checkpointing:
        model.apply_activation_checkpointing()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)

    model.train()
    for step in range(args.steps):
        tokens = torch.randint(0, config.vocab_size, (8, 129), device=device)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"step {step}: ce {loss.item():.3f}")


if __name__ == "__main__":
    main()
