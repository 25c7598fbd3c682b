import torch
from torch import nn

from embeddings import CatEmbeddings, PeriodicEmbeddings


class MLPWithEmbeddings(nn.Module):
    def __init__(self, n_num, cat_cardinalities, d_embedding=16, d_hidden=128):
        super().__init__()
        self.num_embeddings = PeriodicEmbeddings(n_num, d_embedding, sigma=0.1)
        self.cat_embeddings = CatEmbeddings(cat_cardinalities, d_embedding, stack=True)
        d_in = (n_num + len(cat_cardinalities)) * d_embedding
        self.mlp = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, 1))

    def forward(self, x_num, x_cat):
        h_num = self.num_embeddings(x_num)
        h_cat = self.cat_embeddings(x_cat)
        return self.mlp(torch.cat([h_num, h_cat], dim=1).flatten(1)).squeeze(-1)


def main():
    n, n_num, cards = 4096, 8, [3, 10, 7]
    x_num = torch.randn(n, n_num)
    x_cat = torch.stack([torch.randint(0, c, (n,)) for c in cards], dim=1)
    y = torch.randn(n)
    model = MLPWithEmbeddings(n_num, cards)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(10):
        perm = torch.randperm(n)
        for idx in perm.split(256):
            loss = nn.functional.mse_loss(model(x_num[idx], x_cat[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
