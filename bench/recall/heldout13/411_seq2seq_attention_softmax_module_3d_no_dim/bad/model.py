import torch
from torch import nn

from attention import GlobalAttention


class Seq2Seq(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, dim=256):
        super().__init__()
        self.src_emb = nn.Embedding(src_vocab, dim, padding_idx=0)
        self.tgt_emb = nn.Embedding(tgt_vocab, dim, padding_idx=0)
        self.encoder = nn.LSTM(dim, dim, batch_first=True)
        self.decoder = nn.LSTM(dim, dim, batch_first=True)
        self.attn = GlobalAttention(dim)
        self.generator = nn.Linear(dim, tgt_vocab)

    def forward(self, src, tgt_in):
        memory, state = self.encoder(self.src_emb(src))
        dec_out, _ = self.decoder(self.tgt_emb(tgt_in), state)
        attn_h, _ = self.attn(dec_out, memory, src != 0)
        return self.generator(attn_h)


def train():
    model = Seq2Seq(5000, 5000)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss(ignore_index=0)
    for step in range(200):
        src = torch.randint(1, 5000, (16, 30))
        tgt = torch.randint(1, 5000, (16, 25))
        logits = model(src, tgt[:, :-1])
        loss = criterion(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    train()
