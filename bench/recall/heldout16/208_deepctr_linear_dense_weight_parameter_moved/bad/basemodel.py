from collections import namedtuple

import torch
from torch import nn

SparseFeat = namedtuple("SparseFeat", ["name", "vocabulary_size", "embedding_dim"])
DenseFeat = namedtuple("DenseFeat", ["name", "dimension"])


def build_feature_index(feature_columns):
    index, start = {}, 0
    for feat in feature_columns:
        width = 1 if isinstance(feat, SparseFeat) else feat.dimension
        index[feat.name] = (start, start + width)
        start += width
    return index


class Linear(nn.Module):
    """Wide part: one weight per sparse id (embedding of size 1) plus a dense weight vector."""

    def __init__(self, feature_columns, feature_index, init_std=0.0001, device="cpu"):
        super().__init__()
        self.feature_index = feature_index
        self.sparse_feature_columns = [f for f in feature_columns if isinstance(f, SparseFeat)]
        self.dense_feature_columns = [f for f in feature_columns if isinstance(f, DenseFeat)]
        self.embedding_dict = nn.ModuleDict(
            {f.name: nn.Embedding(f.vocabulary_size, 1) for f in self.sparse_feature_columns}
        ).to(device)
        for emb in self.embedding_dict.values():
            nn.init.normal_(emb.weight, mean=0, std=init_std)
        if self.dense_feature_columns:
            n_dense = sum(f.dimension for f in self.dense_feature_columns)
            self.weight = nn.Parameter(torch.empty(n_dense, 1)).to(device)  # expect: TCK108
            nn.init.normal_(self.weight, mean=0, std=init_std)

    def forward(self, X):
        logit = torch.zeros(X.shape[0], 1, device=X.device)
        for f in self.sparse_feature_columns:
            lo, hi = self.feature_index[f.name]
            logit = logit + self.embedding_dict[f.name](X[:, lo:hi].long()).sum(dim=1)
        if self.dense_feature_columns:
            dense = torch.cat([X[:, slice(*self.feature_index[f.name])] for f in self.dense_feature_columns], dim=-1)
            logit = logit + dense.matmul(self.weight)
        return logit


class BaseModel(nn.Module):
    def __init__(self, linear_feature_columns, dnn_feature_columns, init_std=0.0001, device="cpu"):
        super().__init__()
        self.device = device
        self.feature_index = build_feature_index(linear_feature_columns + dnn_feature_columns)
        self.linear_model = Linear(linear_feature_columns, self.feature_index, init_std=init_std, device=device)
        self.to(device)

    def fit(self, x, y, batch_size=256, epochs=1, lr=1e-3):
        optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        loss_func = nn.BCEWithLogitsLoss()
        dataset = torch.utils.data.TensorDataset(x, y)
        loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)
        for epoch in range(epochs):
            self.train()
            total = 0.0
            for xb, yb in loader:
                xb, yb = xb.to(self.device).float(), yb.to(self.device).float()
                optimizer.zero_grad()
                loss = loss_func(self(xb).squeeze(-1), yb)
                loss.backward()
                optimizer.step()
                total += loss.item()
            print(f"epoch {epoch}: loss {total / len(loader):.4f}")
