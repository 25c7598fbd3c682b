import json

import torch
from torch.utils.data import DataLoader

from data.origin_dataset import VideoPreprocessDataset


def collate(batch):
    return {"pixel_values": [b["pixel_values"] for b in batch], "prompt": [b["prompt"] for b in batch]}


@torch.no_grad()
def main(root="videos", meta_path="metadata.json", out_path="latents.pt"):
    with open(meta_path) as f:
        metadata = json.load(f)
    dataset = VideoPreprocessDataset(root, metadata)
    loader = DataLoader(dataset, batch_size=2, num_workers=4, collate_fn=collate)
    stats = []
    for batch in loader:
        for pixels in batch["pixel_values"]:
            stats.append(torch.stack([pixels.mean(), pixels.std()]))
    torch.save(torch.stack(stats), out_path)


if __name__ == "__main__":
    main()
