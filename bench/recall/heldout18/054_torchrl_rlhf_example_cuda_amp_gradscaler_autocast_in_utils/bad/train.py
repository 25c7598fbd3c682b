import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.lr_scheduler import CosineAnnealingLR

from utils import batches, setup


class TinyLM(nn.Module):
    def __init__(self, vocab_size=50304, dim=384, n_layers=6, heads=6, block_size=256, dropout=0.1):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim)
        self.pos = nn.Embedding(block_size, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, idx, targets):
        t = idx.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(t, device=idx.device)
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        logits = self.head(self.blocks(x, mask=mask, is_causal=True))
        return F.cross_entropy(logits.float().view(-1, logits.size(-1)), targets.view(-1))


def create_loss_estimator(eval_iters, ctx):
    @torch.no_grad()
    def estimate_loss(model, loader):
        model.eval()
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            x, y = next(loader)
            with ctx:
                losses[k] = model(x, y).item()
        model.train()
        return losses.mean()

    return estimate_loss


def main(device="cuda", dtype="float16", max_iters=2000, grad_accum=4, grad_clip=1.0, eval_interval=200):
    ctx = setup(device, dtype)
    data = torch.randint(0, 50304, (1_000_000,))
    train_loader = batches(data[:900_000], 256, 16, device)
    val_loader = batches(data[900_000:], 256, 16, device)

    model = TinyLM().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max=max_iters)
    scaler = torch.cuda.amp.GradScaler(enabled=(dtype == "float16"))  # expect: TCK301
    estimate_loss = create_loss_estimator(20, ctx)

    t0 = time.time()
    for it in range(1, max_iters + 1):
        for _ in range(grad_accum):
            x, y = next(train_loader)
            with ctx:
                loss = model(x, y) / grad_accum
            scaler.scale(loss).backward()
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        scheduler.step()
        if it % eval_interval == 0:
            val = estimate_loss(model, val_loader)
            print(f"{it=} val_loss={val:.4f} dt={time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
