import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyPolicy(nn.Module):
    def __init__(self, vocab=32000, dim=512, n_layers=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(nn.TransformerEncoderLayer(dim, 8, 4 * dim, batch_first=True) for _ in range(n_layers))
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, input_ids):
        h = self.emb(input_ids)
        for block in self.blocks:
            h = block(h)
        return self.head(h)


class DTensorPolicyWorker:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = TinyPolicy().cuda()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg["lr"])

    def _loss(self, logits, batch):
        logprobs = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        token_logprobs = logprobs.gather(-1, batch["input_ids"][:, 1:, None]).squeeze(-1)
        mask = batch["token_mask"][:, 1:]
        return -(token_logprobs * batch["advantages"][:, None] * mask).sum() / mask.sum().clamp(min=1)

    def train(self, global_batches, mbs):
        self.model.train()
        losses = []
        for gb in global_batches:
            self.optimizer.zero_grad()
            n_mb = gb["input_ids"].shape[0] // mbs
            for mb_idx in range(n_mb):
                mb = {k: v[mb_idx * mbs:(mb_idx + 1) * mbs].cuda() for k, v in gb.items()}
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    logits = self.model(mb["input_ids"])
                loss = self._loss(logits, mb) / n_mb
                loss.backward()
                losses.append(loss.detach())
                torch.cuda.empty_cache()  # expect: TCK203
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["max_grad_norm"])
            self.optimizer.step()
        return torch.stack(losses).sum().item()


if __name__ == "__main__":
    worker = DTensorPolicyWorker({"lr": 1e-6, "max_grad_norm": 1.0})
    batches = [
        {
            "input_ids": torch.randint(0, 32000, (32, 256)),
            "token_mask": torch.ones(32, 256),
            "advantages": torch.randn(32),
        }
        for _ in range(4)
    ]
    print(worker.train(batches, mbs=4))
