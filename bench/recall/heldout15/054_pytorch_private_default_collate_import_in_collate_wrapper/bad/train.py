import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from collate import pad_collate


class ToySequences(Dataset):
    def __init__(self, n=512, vocab=100):
        lengths = torch.randint(5, 40, (n,))
        self.items = [torch.randint(1, vocab, (int(length),)) for length in lengths]
        self.labels = torch.randint(0, 2, (n,))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return {"tokens": self.items[idx], "label": self.labels[idx]}


class BagClassifier(nn.Module):
    def __init__(self, vocab=100, dim=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.head = nn.Linear(dim, 2)

    def forward(self, tokens, lengths):
        summed = self.emb(tokens).sum(1)
        return self.head(summed / lengths.unsqueeze(1))


def main():
    loader = DataLoader(ToySequences(), batch_size=32, shuffle=True, num_workers=2, collate_fn=pad_collate)
    model = BagClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(3):
        for batch in loader:
            logits = model(batch["tokens"], batch["lengths"])
            loss = criterion(logits, batch["label"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
