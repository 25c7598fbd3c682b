import torch
import torch.nn as nn
import torch.nn.functional as F

from transformer.SubLayers import MultiHeadAttention


class TinyEncoder(nn.Module):
    def __init__(self, vocab=1000, d_model=64, n_head=4, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.layers = nn.ModuleList([MultiHeadAttention(n_head, d_model, 16, 16) for _ in range(n_layers)])
        self.out = nn.Linear(d_model, vocab)

    def forward(self, src):
        x = self.embed(src)
        for layer in self.layers:
            x, _ = layer(x, x, x)
        return self.out(x)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TinyEncoder().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    for step in range(100):
        src = torch.randint(0, 1000, (8, 20), device=device)
        logits = model(src)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), src.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
