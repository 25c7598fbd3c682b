import torch
import torch.nn as nn

from modules.conditional_random_field import ConditionalRandomField


class CrfTagger(nn.Module):
    def __init__(self, vocab_size=5000, embedding_dim=100, hidden_dim=128, num_tags=9):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.encoder = nn.LSTM(embedding_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.tag_projection = nn.Linear(2 * hidden_dim, num_tags)
        self.crf = ConditionalRandomField(num_tags, constraints=[(i, j) for i in range(num_tags) for j in range(num_tags)])

    def forward(self, tokens):
        mask = tokens != 0
        encoded, _ = self.encoder(self.embedding(tokens))
        logits = self.tag_projection(encoded)
        return self.crf.viterbi_tags(logits, mask)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = CrfTagger().to(device)
    model.load_state_dict(torch.load("tagger.th", map_location=device, weights_only=True))
    model.eval()
    with torch.no_grad():
        tokens = torch.randint(1, 5000, (64, 40), device=device)
        for path, score in model(tokens)[:3]:
            print(score, path)


if __name__ == "__main__":
    main()
