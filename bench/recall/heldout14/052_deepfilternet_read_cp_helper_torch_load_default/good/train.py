import torch
from torch import nn

from checkpoint import read_cp, write_cp


class MaskEstimator(nn.Module):
    def __init__(self, n_freqs=96, hidden=128):
        super().__init__()
        self.gru = nn.GRU(n_freqs, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_freqs)

    def forward(self, spec):
        h, _ = self.gru(spec)
        return torch.sigmoid(self.out(h))


def main(cp_dir="base_dir/checkpoints", max_epochs=20):
    model = MaskEstimator()
    epoch = read_cp(model, "model", cp_dir) or 0
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    read_cp(optimizer, "opt", cp_dir)
    for epoch in range(epoch, max_epochs):
        for _ in range(50):
            noisy = torch.rand(8, 100, 96)
            clean = noisy * torch.rand(8, 100, 96)
            loss = (model(noisy) * noisy - clean).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        write_cp(model, "model", cp_dir, epoch + 1)
        write_cp(optimizer, "opt", cp_dir, epoch + 1)


if __name__ == "__main__":
    main()
