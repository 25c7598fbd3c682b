import argparse
import copy

import torch

from model import TinyCausalLM, dpo_loss, sequence_logprobs


def make_loader(num_pairs=4096, seq_len=256, batch_size=4, vocab_size=6400):
    chosen = torch.randint(0, vocab_size, (num_pairs, seq_len + 1))
    rejected = torch.randint(0, vocab_size, (num_pairs, seq_len + 1))
    mask = torch.ones(num_pairs, seq_len)
    ds = torch.utils.data.TensorDataset(chosen, rejected, mask)
    return torch.utils.data.DataLoader(ds, batch_size=batch_size, shuffle=True, num_workers=1)


def train_epoch(epoch, loader, model, ref_model, optimizer, args):
    for step, (chosen, rejected, mask) in enumerate(loader, start=1):
        chosen, rejected, mask = chosen.to(args.device), rejected.to(args.device), mask.to(args.device)
        x = torch.cat([chosen[:, :-1], rejected[:, :-1]])
        y = torch.cat([chosen[:, 1:], rejected[:, 1:]])
        m = torch.cat([mask, mask])
        with torch.no_grad():
            ref_logp = sequence_logprobs(ref_model(x), y, m)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logp = sequence_logprobs(model(x), y, m)
            half = chosen.shape[0]
            loss = dpo_loss(logp[:half], logp[half:], ref_logp[:half], ref_logp[half:])
            loss = loss / args.accumulation_steps
        loss.backward()

        if (step + 1) % args.accumulation_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

        if step % args.log_interval == 0:
            print(f"epoch {epoch} step {step} loss {loss.item() * args.accumulation_steps:.4f}")

        del chosen, rejected, mask, x, y, m, ref_logp, logp, loss


def main():
    parser = argparse.ArgumentParser(description="DPO")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--learning_rate", type=float, default=4e-8)
    parser.add_argument("--device", type=str, default="cuda:0")
    parser.add_argument("--accumulation_steps", type=int, default=1)
    parser.add_argument("--grad_clip", type=float, default=1.0)
    parser.add_argument("--log_interval", type=int, default=100)
    args = parser.parse_args()

    model = TinyCausalLM().to(args.device)
    ref_model = copy.deepcopy(model).eval().requires_grad_(False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    loader = make_loader()
    for epoch in range(args.epochs):
        train_epoch(epoch, loader, model, ref_model, optimizer, args)
    torch.save({k: v.half().cpu() for k, v in model.state_dict().items()}, "dpo.pth")


if __name__ == "__main__":
    main()
