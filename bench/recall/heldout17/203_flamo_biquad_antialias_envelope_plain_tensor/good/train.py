import torch
import torch.nn as nn

from dsp import Biquad


class Shell(nn.Module):
    def __init__(self, core: nn.Module, nfft: int):
        super().__init__()
        self.core = core
        self.nfft = nfft

    def forward(self, x):
        x_f = torch.fft.rfft(x, n=self.nfft, dim=1)
        y_f = self.core(x_f)
        return torch.fft.irfft(y_f, n=self.nfft, dim=1)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    nfft = 4096
    core = Biquad(size=(1, 1), n_sections=4, nfft=nfft, alias_decay_db=30.0)
    model = Shell(core, nfft).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    impulse = torch.zeros(1, nfft, 1, device=device)
    impulse[:, 0] = 1.0
    target = torch.randn(1, nfft, 1, device=device) * torch.exp(-torch.arange(nfft, device=device) / 500.0)[None, :, None]
    for step in range(500):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(impulse), target)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
