import torch
import torch.nn as nn

from field import NestedField


class CharWordTagger(nn.Module):
    def __init__(self, n_chars, n_tags, char_dim=32, hidden=128):
        super().__init__()
        self.char_emb = nn.Embedding(n_chars, char_dim, padding_idx=0)
        self.char_rnn = nn.LSTM(char_dim, hidden // 2, batch_first=True, bidirectional=True)
        self.word_rnn = nn.LSTM(hidden, hidden // 2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(hidden, n_tags)

    def forward(self, chars, sentence_lengths, word_lengths):
        b, w, c = chars.shape
        emb = self.char_emb(chars.view(b * w, c))
        _, (h, _) = self.char_rnn(emb)
        words = torch.cat((h[0], h[1]), dim=-1).view(b, w, -1)
        out, _ = self.word_rnn(words)
        return self.out(out)


def train(sentences, tags, char_vocab, n_tags, epochs=5, batch_size=32):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    field = NestedField(char_vocab)
    model = CharWordTagger(len(char_vocab) + 2, n_tags).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss(ignore_index=-100)
    for epoch in range(epochs):
        for start in range(0, len(sentences), batch_size):
            batch = sentences[start:start + batch_size]
            chars, sentence_lengths, word_lengths = field.process(batch, device=device)
            target = torch.full(chars.shape[:2], -100, dtype=torch.long, device=device)
            for i, seq in enumerate(tags[start:start + batch_size]):
                target[i, : len(seq)] = torch.tensor(seq, device=device)
            logits = model(chars, sentence_lengths, word_lengths)
            loss = criterion(logits.reshape(-1, n_tags), target.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")
