import torch
import torch.nn as nn
import torch.nn.functional as F

from vq import VectorQuantize


class AutoEncoder(nn.Module):
    def __init__(self, dim=64, codebook_size=256):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, dim, 4, 2, 1), nn.ReLU(), nn.Conv2d(dim, dim, 4, 2, 1))
        self.vq = VectorQuantize(dim, codebook_size)
        self.decoder = nn.Sequential(nn.ConvTranspose2d(dim, dim, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(dim, 1, 4, 2, 1))

    def forward(self, x):
        z = self.encoder(x).permute(0, 2, 3, 1)
        q, indices, commit = self.vq(z)
        out = self.decoder(q.permute(0, 3, 1, 2))
        return out, indices, commit


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = AutoEncoder().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(100):
        x = torch.rand(16, 1, 28, 28, device=device)
        x = F.pad(x, (2, 2, 2, 2))
        optimizer.zero_grad()
        with torch.autocast(device.type, dtype=torch.bfloat16):
            out, indices, commit = model(x)
            rec = F.l1_loss(out.float(), x)
            loss = rec + commit
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(step, rec.item(), indices.unique().numel())


if __name__ == "__main__":
    main()
