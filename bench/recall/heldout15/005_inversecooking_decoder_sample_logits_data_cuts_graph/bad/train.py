import argparse

import torch

from model import InverseCookingModel


def fake_batches(num_batches, batch_size, vocab_size, max_ingrs=20):
    for _ in range(num_batches):
        images = torch.randn(batch_size, 3, 224, 224)
        ingrs = torch.randint(1, vocab_size - 1, (batch_size, max_ingrs))
        yield images, ingrs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab-size", type=int, default=1488)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--card-weight", type=float, default=1.0)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = InverseCookingModel(args.vocab_size).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

    for epoch in range(args.epochs):
        model.train()
        for step, (images, ingrs) in enumerate(fake_batches(50, args.batch_size, args.vocab_size)):
            images, ingrs = images.to(device), ingrs.to(device)
            losses = model(images, ingrs)
            loss = losses["ingr_loss"] + args.card_weight * losses["card_penalty"]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 10 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
