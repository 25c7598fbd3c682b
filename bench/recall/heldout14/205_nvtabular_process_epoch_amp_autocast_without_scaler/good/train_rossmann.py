import torch
from torch import nn

from torch_utils import process_epoch


class TabularModel(nn.Module):
    def __init__(self, embedding_sizes, num_continuous, layer_sizes=(512, 256), dropout=0.1):
        super().__init__()
        self.embeddings = nn.ModuleList(nn.Embedding(card, dim) for card, dim in embedding_sizes)
        in_dim = sum(dim for _, dim in embedding_sizes) + num_continuous
        layers = []
        for out_dim in layer_sizes:
            layers += [nn.Linear(in_dim, out_dim), nn.ReLU(), nn.BatchNorm1d(out_dim), nn.Dropout(dropout)]
            in_dim = out_dim
        layers.append(nn.Linear(in_dim, 1))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x_cat, x_cont):
        emb = [e(x_cat[:, i]) for i, e in enumerate(self.embeddings)]
        return self.mlp(torch.cat(emb + [x_cont], dim=1)).squeeze(1)


def main(train_loader, valid_loader, embedding_sizes, num_continuous, epochs=5):
    device = torch.device("cuda")
    model = TabularModel(embedding_sizes, num_continuous).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        train_loss, _, _ = process_epoch(train_loader, model, train=True, optimizer=optimizer,
                                         amp=True, device=device)
        valid_loss, _, _ = process_epoch(valid_loader, model, train=False, amp=True, device=device)
        print(f"epoch {epoch}: train {train_loss:.4f} valid {valid_loss:.4f}")
