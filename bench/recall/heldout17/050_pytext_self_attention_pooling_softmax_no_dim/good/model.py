import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from pooling import SelfAttention


class DocClassifier(nn.Module):
    def __init__(self, vocab_size: int, embed_dim: int, hidden: int, n_classes: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden, batch_first=True, bidirectional=True)
        self.pool = SelfAttention(2 * hidden)
        self.out = nn.Linear(2 * hidden, n_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        rep, _ = self.lstm(self.embedding(tokens))
        return self.out(self.pool(rep))


def train(epochs: int = 2) -> None:
    tokens = torch.randint(0, 1000, (256, 40))
    labels = torch.randint(0, 5, (256,))
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=32, shuffle=True)
    model = DocClassifier(1000, 64, 128, 5)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    train()
