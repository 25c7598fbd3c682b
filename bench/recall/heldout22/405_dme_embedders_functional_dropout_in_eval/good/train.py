import argparse

import torch
import torch.nn.functional as F

from encoders import TextClassifier

parser = argparse.ArgumentParser(description="SST-2 with dynamic meta-embeddings")
parser.add_argument("--mixmode", default="proj_sum", choices=["cat", "proj_sum"])
parser.add_argument("--attnnet", default="no_dep_softmax")
parser.add_argument("--nonlin", default="none")
parser.add_argument("--emb_dropout", type=float, default=0.5)
parser.add_argument("--clf_dropout", type=float, default=0.5)
parser.add_argument("--proj_embed_sz", type=int, default=256)
parser.add_argument("--rnn_dim", type=int, default=512)
parser.add_argument("--fc_dim", type=int, default=512)
parser.add_argument("--batch_sz", type=int, default=64)
parser.add_argument("--lr", type=float, default=4e-4)
parser.add_argument("--max_epochs", type=int, default=10)
args = parser.parse_args()
args.embeds = [("fasttext", 300), ("glove", 300)]
args.vocab_stoi = {"<pad>": 0, **{f"w{i}": i for i in range(1, 5000)}}


def fake_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    lens = torch.randint(4, 40, (n,), generator=g)
    words = torch.randint(1, 5000, (int(lens.max()), n), generator=g)
    labels = torch.randint(0, 2, (n,), generator=g)
    return words, lens, labels


def batches(split, bs):
    words, lens, labels = split
    for i in range(0, labels.size(0), bs):
        yield words[:, i:i + bs], lens[i:i + bs], labels[i:i + bs]


def evaluate(model, split, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for words, lens, labels in batches(split, args.batch_sz):
            logits = model(words.to(device), lens.to(device))
            correct += (logits.argmax(1) == labels.to(device)).sum().item()
            total += labels.size(0)
    return correct / total


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train, dev = fake_split(2048, 0), fake_split(512, 1)
    model = TextClassifier(args, n_classes=2).to(device)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=args.lr)
    best = 0.0
    for epoch in range(args.max_epochs):
        model.train()
        for words, lens, labels in batches(train, args.batch_sz):
            loss = F.cross_entropy(model(words.to(device), lens.to(device)), labels.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        acc = evaluate(model, dev, device)
        print(f"epoch {epoch}: dev accuracy {acc:.4f}")
        if acc > best:
            best = acc
            torch.save(model.state_dict(), "sst2_dme.pt")


if __name__ == "__main__":
    main()
