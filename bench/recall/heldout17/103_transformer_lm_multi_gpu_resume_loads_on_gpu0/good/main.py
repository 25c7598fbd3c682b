import os
import shutil
from pathlib import Path

import numpy as np
import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim

from model import GPT2, HParams


def fixed_state_dict(state_dict):
    # checkpoints written before the model was wrapped have no prefix
    return {k[len("module."):] if k.startswith("module.") else k: v for k, v in state_dict.items()}


def unwrapped(model):
    return model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model


def sample_batch(dataset, n_ctx, batch_size):
    starts = np.random.randint(0, len(dataset) - n_ctx, size=batch_size)
    return np.stack([dataset[s: s + n_ctx] for s in starts])


def main(run_path, dataset_path, *, lr=2.5e-4, batch_size=2, n_ctx=256, steps=10000,
         save_every=1000, device_id=None, n_devices=None):
    if n_devices is None:
        n_devices = torch.cuda.device_count()
        if n_devices > 1:
            mp.spawn(_main_mp, (run_path, dataset_path, n_devices), nprocs=n_devices)
            return

    is_main = device_id in {0, None}
    world_size = max(1, n_devices)
    run_path = Path(run_path)
    model_path = run_path / "model.pt"
    optimizer_path = run_path / "optim.pt"
    if is_main:
        run_path.mkdir(parents=True, exist_ok=True)

    train_dataset = np.load(Path(dataset_path) / "train.npy")
    device = torch.device("cuda", index=device_id or 0)
    model = GPT2(HParams(n_vocab=50000, n_ctx=n_ctx)).to(device)
    optimizer = optim.Adam(model.parameters(), lr=lr)
    cross_entropy = nn.CrossEntropyLoss()
    seen_tokens = 0

    def load_model():
        nonlocal seen_tokens
        state = torch.load(model_path, map_location=device, weights_only=True)
        seen_tokens = state["seen_tokens"]
        model.load_state_dict(fixed_state_dict(state["state_dict"]))
        optimizer.load_state_dict(torch.load(optimizer_path, map_location=device, weights_only=True))
        print(f"resuming from {seen_tokens:,} tokens")

    if model_path.exists():
        load_model()

    if device_id is not None:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "40390")
        torch.distributed.init_process_group("nccl", rank=device_id, world_size=world_size)
        model = nn.parallel.DistributedDataParallel(model, device_ids=[device_id])

    def save():
        if not is_main:
            return
        for path in (model_path, optimizer_path):
            if path.exists():
                shutil.copy(path, run_path / f"{path.stem}-prev{path.suffix}")
        torch.save({"state_dict": unwrapped(model).state_dict(), "seen_tokens": seen_tokens}, model_path)
        torch.save(optimizer.state_dict(), optimizer_path)

    model.train()
    for step in range(1, steps + 1):
        ctx = torch.as_tensor(sample_batch(train_dataset, n_ctx, batch_size), dtype=torch.long, device=device)
        optimizer.zero_grad()
        logits = model(ctx)
        loss = cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ctx[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        seen_tokens += ctx.numel() * world_size
        if step % save_every == 0:
            save()


def _main_mp(i, run_path, dataset_path, n_devices):
    main(run_path, dataset_path, device_id=i, n_devices=n_devices)


if __name__ == "__main__":
    import sys
    main(sys.argv[1], sys.argv[2])
