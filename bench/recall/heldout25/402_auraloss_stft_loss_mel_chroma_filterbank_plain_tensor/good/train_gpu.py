"""Fit a small convolutional model to a target waveform with a mel-STFT loss on the GPU."""
import torch

import auraloss

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

model = torch.nn.Sequential(
    torch.nn.Conv1d(1, 32, 15, padding=7),
    torch.nn.PReLU(),
    torch.nn.Conv1d(32, 1, 15, padding=7),
).to(device)

# the loss is built without a device and moved like any module
criterion = auraloss.MelSTFTLoss(sample_rate=44100, n_mels=64).to(device)
mr_criterion = auraloss.MultiResolutionSTFTLoss(sample_rate=44100, scale="mel", n_bins=64).to(device)

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(200):
    x = torch.randn(4, 1, 44100, device=device)
    y = torch.tanh(2 * x)
    y_hat = model(x)
    loss = criterion(y_hat, y) + mr_criterion(y_hat, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 20 == 0:
        print(step, loss.item())
