import json

import torch
from torch.utils.data import DataLoader

from dataset import VideoClipDataset


class TinyVideoDenoiser(torch.nn.Module):
    def __init__(self, channels=3, hidden=32):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Conv3d(channels, hidden, 3, padding=1),
            torch.nn.SiLU(),
            torch.nn.Conv3d(hidden, channels, 3, padding=1),
        )

    def forward(self, x):
        return self.net(x)


def main(root="data/clips", caption_file="data/captions.json", epochs=1):
    with open(caption_file) as f:
        captions = json.load(f)
    loader = DataLoader(VideoClipDataset(root, captions), batch_size=1, shuffle=True, num_workers=4)
    model = TinyVideoDenoiser()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(epochs):
        for batch in loader:
            video = batch["video"]
            noise = torch.randn_like(video)
            loss = torch.nn.functional.mse_loss(model(video + noise), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
