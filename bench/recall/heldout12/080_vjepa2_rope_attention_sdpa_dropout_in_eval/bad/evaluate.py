import torch
import torch.nn as nn

from models.attention import Encoder


class Probe(nn.Module):
    def __init__(self, dim, num_classes):
        super().__init__()
        self.head = nn.Linear(dim, num_classes)

    def forward(self, feats):
        return self.head(feats.mean(dim=1))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    encoder = Encoder(drop=0.1).to(device)
    probe = Probe(192, 10).to(device)
    encoder.load_state_dict(torch.load("encoder.pt", map_location=device, weights_only=True))
    probe.load_state_dict(torch.load("probe.pt", map_location=device, weights_only=True))
    encoder.eval()
    probe.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for _ in range(20):
            tokens = torch.randn(8, 64, 192, device=device)
            labels = torch.randint(0, 10, (8,), device=device)
            logits = probe(encoder(tokens))
            correct += (logits.argmax(dim=-1) == labels).sum().item()
            total += labels.numel()
    print(f"top-1: {correct / total:.3f}")


if __name__ == "__main__":
    main()
