import torch
from torch import nn

from basemodel import BaseModel, DenseFeat, SparseFeat


class DeepFM(BaseModel):
    def __init__(self, linear_feature_columns, dnn_feature_columns, embedding_dim=8, hidden=(64, 32),
                 init_std=0.0001, device="cpu"):
        super().__init__(linear_feature_columns, dnn_feature_columns, init_std=init_std, device=device)
        self.sparse = [f for f in dnn_feature_columns if isinstance(f, SparseFeat)]
        self.dense = [f for f in dnn_feature_columns if isinstance(f, DenseFeat)]
        self.embeddings = nn.ModuleDict({f.name: nn.Embedding(f.vocabulary_size, embedding_dim) for f in self.sparse})
        in_dim = len(self.sparse) * embedding_dim + sum(f.dimension for f in self.dense)
        layers = []
        for h in hidden:
            layers += [nn.Linear(in_dim, h), nn.ReLU()]
            in_dim = h
        self.dnn = nn.Sequential(*layers, nn.Linear(in_dim, 1))
        self.to(device)

    def forward(self, X):
        embs = [self.embeddings[f.name](X[:, self.feature_index[f.name][0]].long()) for f in self.sparse]
        stacked = torch.stack(embs, dim=1)  # (B, F, E)
        fm = 0.5 * (stacked.sum(1).pow(2) - stacked.pow(2).sum(1)).sum(1, keepdim=True)
        dense = [X[:, slice(*self.feature_index[f.name])] for f in self.dense]
        dnn_in = torch.cat([stacked.flatten(1)] + dense, dim=-1)
        return self.linear_model(X) + fm + self.dnn(dnn_in)


def main():
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    sparse = [SparseFeat(f"C{i}", 100, 8) for i in range(4)]
    dense = [DenseFeat(f"I{i}", 1) for i in range(3)]
    columns = sparse + dense
    n = 4096
    x = torch.cat([torch.randint(0, 100, (n, 4)).float(), torch.randn(n, 3)], dim=1)
    y = (x[:, 4] > 0).float()
    model = DeepFM(columns, columns, device=device)
    model.fit(x, y, batch_size=256, epochs=3)


if __name__ == "__main__":
    main()
