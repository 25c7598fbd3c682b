import torch
import torch.nn.functional as F

from engine import TrainEngine


class TinyLM(torch.nn.Module):
    def __init__(self, vocab=128, dim=64):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.head = torch.nn.Linear(dim, vocab)

    def forward(self, input_ids):
        return self.head(self.embed(input_ids))


def sft_loss(logits, mb):
    labels = torch.roll(mb["input_ids"], shifts=-1, dims=-1)
    token_loss = F.cross_entropy(logits.float().flatten(0, 1), labels.flatten(), reduction="none")
    mask = mb["loss_mask"].flatten().float()
    return (token_loss * mask).sum() / mask.sum().clamp(min=1)


def main(steps=10):
    engine = TrainEngine(TinyLM())
    for _ in range(steps):
        batch = {
            "input_ids": torch.randint(0, 128, (8, 32)),
            "loss_mask": (torch.rand(8, 32) > 0.3).long(),
        }
        stats = engine.train_batch(batch, loss_fn=sft_loss, loss_weight_fn=lambda mb: mb["loss_mask"].count_nonzero())
        print(stats)


if __name__ == "__main__":
    main()
