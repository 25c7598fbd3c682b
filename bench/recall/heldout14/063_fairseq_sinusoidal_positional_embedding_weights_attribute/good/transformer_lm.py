import torch
import torch.nn.functional as F
from torch import nn

from sinusoidal_positional_embedding import SinusoidalPositionalEmbedding

PAD = 1


class TransformerLM(nn.Module):
    def __init__(self, vocab=1000, dim=128, layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.embed_positions = SinusoidalPositionalEmbedding(dim, PAD, init_size=256)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=256, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, layers)
        self.output_projection = nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed_tokens(tokens) * self.embed_tokens.embedding_dim ** 0.5 + self.embed_positions(tokens)
        causal = nn.Transformer.generate_square_subsequent_mask(tokens.size(1)).to(x.device)
        return self.output_projection(self.layers(x, mask=causal, is_causal=True))


def main(steps=20):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = TransformerLM().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    for _ in range(steps):
        tokens = torch.randint(2, 1000, (8, 64), device=device)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1), ignore_index=PAD)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(loss.item(), sorted(model.state_dict())[:3])


if __name__ == "__main__":
    main()
