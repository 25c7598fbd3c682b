from torch import nn

from layers import PositionalEncoding, TransformerBlock


class Encoder(nn.Module):
    def __init__(self, embed_dim, num_heads, num_blocks):
        super().__init__()
        self.positional_encoding = PositionalEncoding(embed_dim)
        self.blocks = nn.ModuleList([TransformerBlock(embed_dim, num_heads) for _ in range(num_blocks)])

    def forward(self, x):
        x = self.positional_encoding(x)
        for block in self.blocks:
            x = block(x, x, x)
        return x


class Decoder(nn.Module):
    def __init__(self, embed_dim, num_heads, num_blocks, vocab_size):
        super().__init__()
        self.positional_encoding = PositionalEncoding(embed_dim)
        self.blocks = nn.ModuleList([TransformerBlock(embed_dim, num_heads) for _ in range(num_blocks)])
        self.to_vocab = nn.Linear(embed_dim, vocab_size)

    def forward(self, memory, y):
        y = self.positional_encoding(y)
        for block in self.blocks:
            y = block(y, memory, memory)
        return self.to_vocab(y)


class Translator(nn.Module):
    def __init__(self, vocab_size, embed_dim=256, num_heads=8, num_blocks=4):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.encoder = Encoder(embed_dim, num_heads, num_blocks)
        self.decoder = Decoder(embed_dim, num_heads, num_blocks, vocab_size)

    def forward(self, src, tgt):
        memory = self.encoder(self.embedding(src))
        return self.decoder(memory, self.embedding(tgt))
