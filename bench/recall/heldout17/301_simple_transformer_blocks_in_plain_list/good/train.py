import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from model import Translator

VOCAB = 1000


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    src = torch.randint(0, VOCAB, (512, 20))
    tgt = torch.randint(0, VOCAB, (512, 21))
    loader = DataLoader(TensorDataset(src, tgt), batch_size=32, shuffle=True, num_workers=2)

    model = Translator(VOCAB).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(10):
        model.train()
        running = 0.0
        for s, t in loader:
            s, t = s.to(device), t.to(device)
            optimizer.zero_grad()
            logits = model(s, t[:, :-1])
            loss = criterion(logits.reshape(-1, VOCAB), t[:, 1:].reshape(-1))
            loss.backward()
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: {running / len(loader):.4f}")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "translator.pt")


if __name__ == "__main__":
    main()
