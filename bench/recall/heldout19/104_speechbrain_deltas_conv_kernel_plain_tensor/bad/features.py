import torch

from processing import Deltas, Filterbank


class MFCC(torch.nn.Module):
    """Log-mel filterbank features with first and second derivatives."""

    def __init__(self, n_fft=400, hop_length=160, n_mels=40, deltas=True):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.deltas = deltas
        self.compute_fbanks = Filterbank(n_fft=n_fft, n_mels=n_mels)
        self.compute_deltas = Deltas(input_size=n_mels)

    def forward(self, wav):
        window = torch.hann_window(self.n_fft, device=wav.device)
        stft = torch.stft(wav, self.n_fft, self.hop_length, window=window, return_complex=True)
        feats = self.compute_fbanks(stft.abs().pow(2).transpose(1, 2))
        if self.deltas:
            delta1 = self.compute_deltas(feats)
            delta2 = self.compute_deltas(delta1)
            feats = torch.cat([feats, delta1, delta2], dim=2)
        return feats


class SpeakerClassifier(torch.nn.Module):
    def __init__(self, n_speakers=40):
        super().__init__()
        self.features = MFCC()
        self.encoder = torch.nn.GRU(120, 256, batch_first=True)
        self.head = torch.nn.Linear(256, n_speakers)

    def forward(self, wav):
        out, _ = self.encoder(self.features(wav))
        return self.head(out.mean(dim=1))


def train(epochs=5):
    device = "cuda"
    model = SpeakerClassifier().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        wav = torch.randn(16, 16000, device=device)
        labels = torch.randint(0, 40, (16,), device=device)
        loss = torch.nn.functional.cross_entropy(model(wav), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    train()
