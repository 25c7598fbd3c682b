import argparse
import logging
import os

import torch

from model import Transformer, lm_loss


def load_model(args, model):
    checkpoint = torch.load(args.resume, map_location="cpu", weights_only=True)
    sd = checkpoint["state_dict"]
    start_epoch = checkpoint["epoch"]
    if next(iter(sd.items()))[0].startswith("module"):
        sd = {k[len("module."):]: v for k, v in sd.items()}
    if "_orig_mod" in next(iter(sd.items()))[0]:
        sd = {k.replace("_orig_mod.", ""): v for k, v in sd.items()}
    model.load_state_dict(sd)
    logging.info(f"=> resuming checkpoint '{args.resume}' (epoch {start_epoch})")
    return start_epoch


def load_optimizer(args, optimizer):
    checkpoint = torch.load(args.resume, map_location="cpu", weights_only=True)
    optimizer.load_state_dict(checkpoint["optimizer"])


def save_checkpoint(args, model, optimizer, epoch):
    path = os.path.join(args.checkpoint_path, f"epoch_{epoch}.pt")
    torch.save({"epoch": epoch, "state_dict": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    return path


def main(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Transformer()
    start_epoch = 0
    if args.resume is not None:
        start_epoch = load_model(args, model)
    model = model.to(device)
    if args.torchcompile:
        logging.info("Compiling model...")
        model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)
    if args.resume is not None:
        load_optimizer(args, optimizer)

    data = torch.randint(0, 1024, (4096, 257))
    for epoch in range(start_epoch, args.epochs):
        model.train()
        for step in range(0, len(data), args.batch_size):
            tokens = data[step : step + args.batch_size].to(device)
            with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=device == "cuda"):
                loss = lm_loss(model(tokens), tokens)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")
        args.resume = save_checkpoint(args, model, optimizer, epoch + 1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default=None)
    parser.add_argument("--checkpoint-path", default="checkpoints")
    parser.add_argument("--torchcompile", action="store_true")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-4)
    main(parser.parse_args())
