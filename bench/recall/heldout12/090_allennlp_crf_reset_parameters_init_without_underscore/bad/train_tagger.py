import torch
import torch.nn as nn

from modules.conditional_random_field import ConditionalRandomField


class CrfTagger(nn.Module):
    def __init__(self, vocab_size=5000, embedding_dim=100, hidden_dim=128, num_tags=9):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.encoder = nn.LSTM(embedding_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.tag_projection = nn.Linear(2 * hidden_dim, num_tags)
        self.crf = ConditionalRandomField(num_tags)

    def forward(self, tokens, tags):
        mask = tokens != 0
        encoded, _ = self.encoder(self.embedding(tokens))
        logits = self.tag_projection(encoded)
        return -self.crf(logits, tags, mask)


def main():
    model = CrfTagger()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(200):
        tokens = torch.randint(1, 5000, (32, 20))
        tags = torch.randint(0, 9, (32, 20))
        optimizer.zero_grad()
        loss = model(tokens, tags)
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
