import torch
from torch import nn

from diagnostics import attach_diagnostics


class Encoder(nn.Module):
    def __init__(self, feat_dim=80, d_model=256, vocab=500):
        super().__init__()
        self.embed = nn.Linear(feat_dim, d_model)
        self.layers = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model, 4, 1024, batch_first=True), num_layers=2)
        self.output = nn.Linear(d_model, vocab)

    def forward(self, x):
        return self.output(self.layers(self.embed(x)))


def main(print_diagnostics=True):
    torch.manual_seed(0)
    model = Encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    diagnostics = attach_diagnostics(model) if print_diagnostics else None
    model.train()
    for step in range(20):
        feats = torch.randn(8, 100, 80)
        targets = torch.randint(0, 500, (8, 100))
        loss = nn.functional.cross_entropy(model(feats).transpose(1, 2), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if diagnostics is not None:
        for diag in diagnostics.values():
            diag.print_diagnostics()


if __name__ == "__main__":
    main()
