import torch
from torch import nn

from layers import MergeLayer


class TextCNN(nn.Module):
    def __init__(self, vocab_size: int, emb_dim: int = 128, num_classes: int = 4):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim)
        branches = [
            {"type": "Conv1d", "kwargs": {"in_channels": emb_dim, "out_channels": 64,
                                          "kernel_size": k, "padding": k // 2}}
            for k in (3, 5)
        ]
        branches.append(nn.Conv1d(emb_dim, 64, kernel_size=1))
        self.merge = MergeLayer(branches, mode="concat", dim=1)
        self.classifier = nn.Linear(3 * 64, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embedding(tokens).transpose(1, 2)
        x = torch.relu(self.merge(x))
        x = x.max(dim=2).values
        return self.classifier(x)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TextCNN(vocab_size=5000).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for step in range(100):
        tokens = torch.randint(0, 5000, (32, 40), device=device)
        labels = torch.randint(0, 4, (32,), device=device)
        optimizer.zero_grad()
        loss = criterion(model(tokens), labels)
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
