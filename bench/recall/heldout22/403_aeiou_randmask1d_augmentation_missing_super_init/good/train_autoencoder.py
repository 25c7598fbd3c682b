import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

from augs import PadCrop, PhaseFlipper, RandMask1D, RandPool

parser = argparse.ArgumentParser()
parser.add_argument("--sample_size", type=int, default=32768)
parser.add_argument("--steps", type=int, default=200)
parser.add_argument("--batch_size", type=int, default=8)
args = parser.parse_args()


class AudioDataset(torch.utils.data.Dataset):
    def __init__(self, n_files, sample_size, augs="PhaseFlipper()"):
        self.clips = [torch.randn(2, sample_size + 4000) for _ in range(n_files)]
        base_augs = "PadCrop(sample_size)"
        self.augs = eval(f"torch.nn.Sequential({base_augs}, {augs})")

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        return self.augs(self.clips[i])


class ConvAutoencoder(nn.Module):
    def __init__(self, channels=2, hidden=64):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv1d(channels, hidden, 9, stride=4, padding=4), nn.GELU(),
                                 nn.Conv1d(hidden, hidden, 9, stride=4, padding=4))
        self.dec = nn.Sequential(nn.ConvTranspose1d(hidden, hidden, 8, stride=4, padding=2), nn.GELU(),
                                 nn.ConvTranspose1d(hidden, channels, 8, stride=4, padding=2))

    def forward(self, x):
        return self.dec(self.enc(x))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    ds = AudioDataset(64, args.sample_size, augs="PhaseFlipper(), RandPool()")
    dl = torch.utils.data.DataLoader(ds, batch_size=args.batch_size, shuffle=True, drop_last=True)
    # masked-reconstruction objective: the model sees the signal with regions cut out
    masker = RandMask1D(mask_frac=0.25, mask_width=0.05, mask_type="smoothstep")
    model = ConvAutoencoder().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    step = 0
    while step < args.steps:
        for batch in dl:
            batch = batch.to(device)
            masked = masker(batch)
            loss = F.mse_loss(model(masked), batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 50 == 0:
                print(f"step {step}: loss {loss.item():.4f}")
            step += 1
            if step >= args.steps:
                break


if __name__ == "__main__":
    main()
