import torch

from combiners import ComparatorCombiner


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    features = {"name_a": 32, "addr_a": 16, "name_b": 32, "addr_b": 16}
    combiner = ComparatorCombiner(features, ["name_a", "addr_a"], ["name_b", "addr_b"]).to(device)
    head = torch.nn.Linear(4 * 64 + 1, 2).to(device)
    optimizer = torch.optim.Adam(list(combiner.parameters()) + list(head.parameters()), lr=1e-3)
    criterion = torch.nn.CrossEntropyLoss()

    for step in range(100):
        inputs = {k: torch.randn(16, d, device=device) for k, d in features.items()}
        labels = torch.randint(0, 2, (16,), device=device)
        logits = head(combiner(inputs))
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
