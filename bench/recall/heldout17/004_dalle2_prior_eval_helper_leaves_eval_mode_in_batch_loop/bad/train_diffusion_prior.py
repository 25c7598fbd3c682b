import argparse

import numpy as np
import torch
from torch import nn

from prior import DiffusionPrior, PriorNetwork

REPORT_METRICS_EVERY = 100
LOG_EVERY = 10


def embedding_reader(embeddings, batch_size, start, end):
    for i in range(start, end, batch_size):
        yield embeddings[i:min(i + batch_size, end)]


def eval_model(model, device, image_embeds, text_embeds, start, end, batch_size, phase="Validation"):
    model.eval()
    with torch.no_grad():
        total_loss, total_samples = 0.0, 0
        for emb_images, emb_text in zip(embedding_reader(image_embeds, batch_size, start, end),
                                        embedding_reader(text_embeds, batch_size, start, end)):
            images = torch.as_tensor(emb_images).to(device)
            texts = torch.as_tensor(emb_text).to(device)
            loss = model(text_embed=texts, image_embed=images)
            total_loss += loss.item() * images.shape[0]
            total_samples += images.shape[0]
    print(f"{phase} loss: {total_loss / total_samples:.4f}")


def train(args, device="cuda"):
    image_embeds = np.random.randn(20000, 768).astype(np.float32)
    text_embeds = np.random.randn(20000, 768).astype(np.float32)
    net = PriorNetwork(dim=768, attn_dropout=args.dropout, ff_dropout=args.dropout)
    diffusion_prior = DiffusionPrior(net).to(device)
    optimizer = torch.optim.AdamW(diffusion_prior.net.parameters(), lr=args.lr, weight_decay=args.wd)

    train_set_size = int(0.7 * len(image_embeds))
    eval_start = train_set_size
    step = 0
    for _ in range(args.epochs):
        diffusion_prior.train()
        for emb_images, emb_text in zip(embedding_reader(image_embeds, args.batch_size, 0, train_set_size),
                                        embedding_reader(text_embeds, args.batch_size, 0, train_set_size)):
            images = torch.as_tensor(emb_images).to(device)
            texts = torch.as_tensor(emb_text).to(device)
            loss = diffusion_prior(text_embed=texts, image_embed=images)
            loss.backward()
            nn.utils.clip_grad_norm_(diffusion_prior.parameters(), args.max_grad_norm)
            optimizer.step()
            optimizer.zero_grad()

            step += 1
            if step % LOG_EVERY == 0:
                print(f"step {step} training loss {loss.item():.4f}")
            if step % REPORT_METRICS_EVERY == 0:
                eval_model(diffusion_prior, device, image_embeds, text_embeds,  # expect: TCK106
                           eval_start, eval_start + 1000, 1000)

    eval_model(diffusion_prior, device, image_embeds, text_embeds, int(0.9 * len(image_embeds)),
               len(image_embeds), args.batch_size, phase="Test")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1.1e-4)
    parser.add_argument("--wd", type=float, default=6.02e-2)
    parser.add_argument("--dropout", type=float, default=5e-2)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=5)
    train(parser.parse_args())


if __name__ == "__main__":
    main()
