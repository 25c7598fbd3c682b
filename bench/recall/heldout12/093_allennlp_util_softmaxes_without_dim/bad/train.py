import torch

from models.simple_tagger import SimpleTagger
from allen_nn.util import masked_softmax


def main():
    model = SimpleTagger(vocab_size=2000, embedding_dim=64, hidden_dim=64, num_classes=12)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(100):
        tokens = torch.randint(1, 2000, (16, 30))
        tags = torch.randint(0, 12, (16, 30))
        optimizer.zero_grad()
        output = model(tokens, tags)
        output["loss"].backward()
        optimizer.step()
        if step % 20 == 0:
            print(step, output["loss"].item())
    model.eval()
    with torch.no_grad():
        scores = torch.randn(4, 30)
        attention = masked_softmax(scores, torch.ones(4, 30, dtype=torch.bool))
        print(attention.sum(dim=1))


if __name__ == "__main__":
    main()
