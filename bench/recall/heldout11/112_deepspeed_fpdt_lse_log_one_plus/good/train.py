import torch
import torch.nn.functional as F

from fpdt_layer import ChunkedSelfAttention


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    layer = ChunkedSelfAttention(hidden=256, heads=8, chunk_size=64).to(device)
    optimizer = torch.optim.AdamW(layer.parameters(), lr=3e-4)
    for step in range(50):
        x = torch.randn(2, 512, 256, device=device)
        loss = F.mse_loss(layer(x), x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
