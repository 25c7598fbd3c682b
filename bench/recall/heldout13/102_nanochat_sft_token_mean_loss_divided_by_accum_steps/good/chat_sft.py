import random

import torch

from gpt import GPT


def sft_batches(conversations, batch_size, pad_id=0, device="cpu"):
    """Yield (inputs, targets) of variable-length conversations, padded per batch."""
    while True:
        random.shuffle(conversations)
        for i in range(0, len(conversations) - batch_size + 1, batch_size):
            rows = conversations[i : i + batch_size]
            width = max(len(ids) for ids, _ in rows) - 1
            inputs = torch.full((batch_size, width), pad_id, dtype=torch.long)
            targets = torch.full((batch_size, width), -1, dtype=torch.long)
            for r, (ids, assistant_mask) in enumerate(rows):
                ids = torch.tensor(ids)
                m = torch.tensor(assistant_mask[1:], dtype=torch.bool)
                n = len(ids) - 1
                inputs[r, :n] = ids[:-1]
                targets[r, :n] = torch.where(m, ids[1:], torch.full_like(ids[1:], -1))
            yield inputs.to(device), targets.to(device)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    random.seed(0)
    conversations = []
    for _ in range(2000):
        n = random.randint(16, 400)
        ids = [random.randrange(8192) for _ in range(n)]
        split = random.randint(4, n - 2)
        conversations.append((ids, [0] * split + [1] * (n - split)))

    model = GPT().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.0)

    device_batch_size = 4
    target_examples_per_step = 32
    grad_accum_steps = target_examples_per_step // device_batch_size
    num_iterations = 500

    train_iter = sft_batches(conversations, device_batch_size, device=device)
    model.train()
    for step in range(num_iterations):
        micro_batches = [next(train_iter) for _ in range(grad_accum_steps)]
        # normalise by the supervised tokens of the whole accumulation window
        num_tokens = sum(int((t >= 0).sum()) for _, t in micro_batches)
        loss_sum = 0.0
        for train_inputs, train_targets in micro_batches:
            loss = model(train_inputs, train_targets, loss_reduction="sum")
            loss_sum += loss.item()
            (loss / num_tokens).backward()
        train_loss = torch.tensor(loss_sum / max(num_tokens, 1))
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step % 50 == 0:
            print(f"step {step:05d} | loss {train_loss.item():.4f} | tokens {num_tokens}")


if __name__ == "__main__":
    main()
