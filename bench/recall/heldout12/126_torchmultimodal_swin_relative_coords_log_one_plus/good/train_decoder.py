import torch
from torch import nn

from swin_decoder import SwinDecoderBlock


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    window = (4, 4)
    decoder = nn.Sequential(*[SwinDecoderBlock(256, 8, window) for _ in range(4)]).to(device)
    head = nn.Linear(256, 16 * 16).to(device)
    optimizer = torch.optim.AdamW(list(decoder.parameters()) + list(head.parameters()), lr=2e-4)
    for step in range(200):
        tokens = torch.randn(32, window[0] * window[1], 256, device=device)
        target = torch.randn(32, window[0] * window[1], 16 * 16, device=device)
        loss = nn.functional.mse_loss(head(decoder(tokens)), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
