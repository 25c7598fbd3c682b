import torch

from glow import WaveGlow, WaveGlowLoss


def main():
    model = WaveGlow()
    criterion = WaveGlowLoss(sigma=1.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for step in range(50):
        mel = torch.randn(2, 80, 63)
        audio = torch.randn(2, 16000)
        loss = criterion(model(mel, audio))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
