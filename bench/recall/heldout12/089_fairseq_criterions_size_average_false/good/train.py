import torch
import torch.nn as nn

from criterions.cross_entropy import CrossEntropyCriterion


class TransformerLM(nn.Module):
    def __init__(self, vocab=1000, dim=256, layers=2, padding_idx=1):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=padding_idx)
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=4 * dim, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers)
        self.out = nn.Linear(dim, vocab)

    def forward(self, net_input):
        tokens = net_input["src_tokens"]
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.size(1)).to(tokens.device)
        return self.out(self.encoder(self.embed(tokens), mask=mask, is_causal=True))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = TransformerLM().to(device)
    criterion = CrossEntropyCriterion(padding_idx=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    for step in range(100):
        tokens = torch.randint(2, 1000, (16, 65), device=device)
        sample = {"net_input": {"src_tokens": tokens[:, :-1]}, "target": tokens[:, 1:], "ntokens": tokens[:, 1:].numel()}
        optimizer.zero_grad()
        loss, sample_size, logging_output = criterion(model, sample)
        (loss / sample_size).backward()
        optimizer.step()
        if step % 10 == 0:
            print(step, CrossEntropyCriterion.aggregate_logging_outputs([logging_output]))


if __name__ == "__main__":
    main()
