import torch
import torch.nn as nn


class Linear(nn.Module):
    """Wide (linear) part of a CTR model: one embedding per sparse field plus a dense weight."""

    def __init__(self, sparse_vocab_sizes, dense_dim, init_std=0.0001, device="cpu"):
        super().__init__()
        self.device = device
        self.embedding_dict = nn.ModuleDict(
            {name: nn.Embedding(size, 1) for name, size in sparse_vocab_sizes.items()}
        ).to(device)
        for emb in self.embedding_dict.values():
            nn.init.normal_(emb.weight, mean=0, std=init_std)
        self.dense_dim = dense_dim
        if dense_dim > 0:
            self.weight = nn.Parameter(torch.Tensor(dense_dim, 1)).to(device)  # expect: TCK108
            torch.nn.init.normal_(self.weight, mean=0, std=init_std)

    def forward(self, sparse_inputs, dense_inputs):
        logit = torch.zeros(dense_inputs.shape[0], 1, device=dense_inputs.device)
        for name, emb in self.embedding_dict.items():
            logit = logit + emb(sparse_inputs[name]).squeeze(1)
        if self.dense_dim > 0:
            logit = logit + dense_inputs.matmul(self.weight)
        return logit


class WideAndDeep(nn.Module):
    def __init__(self, sparse_vocab_sizes, dense_dim, emb_dim=8, hidden=(256, 128), device="cpu"):
        super().__init__()
        self.linear_model = Linear(sparse_vocab_sizes, dense_dim, device=device)
        self.embeddings = nn.ModuleDict(
            {name: nn.Embedding(size, emb_dim) for name, size in sparse_vocab_sizes.items()}
        )
        layers, in_dim = [], emb_dim * len(sparse_vocab_sizes) + dense_dim
        for h in hidden:
            layers += [nn.Linear(in_dim, h), nn.ReLU()]
            in_dim = h
        layers.append(nn.Linear(in_dim, 1, bias=False))
        self.dnn = nn.Sequential(*layers)
        self.to(device)

    def forward(self, sparse_inputs, dense_inputs):
        emb = torch.cat([e(sparse_inputs[n]).squeeze(1) for n, e in self.embeddings.items()], dim=1)
        deep_logit = self.dnn(torch.cat([emb, dense_inputs], dim=1))
        return torch.sigmoid(self.linear_model(sparse_inputs, dense_inputs) + deep_logit)
