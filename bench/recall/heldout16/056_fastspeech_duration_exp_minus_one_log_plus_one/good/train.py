import torch

from fastspeech import FastSpeech2, FastSpeechLoss


def main(steps=500):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = FastSpeech2().to(device)
    criterion = FastSpeechLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for step in range(steps):
        tokens = torch.randint(1, 80, (8, 40), device=device)
        durations = torch.randint(1, 6, (8, 40), device=device)
        mel_target = torch.randn(8, int(durations.sum(1).max()), 80, device=device)
        mel, log_durations = model(tokens, durations=durations)
        loss = criterion(mel, log_durations, mel_target, durations)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    model.eval()
    with torch.no_grad():
        mel, _ = model(torch.randint(1, 80, (1, 30), device=device))
    print(mel.shape)


if __name__ == "__main__":
    main()
