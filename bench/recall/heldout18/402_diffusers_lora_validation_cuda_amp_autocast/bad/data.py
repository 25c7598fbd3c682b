import torch
from torch.utils.data import Dataset


class CachedLatentsDataset(Dataset):
    """Pre-encoded VAE latents and text-encoder states, one item per image/caption pair."""

    def __init__(self, size=64, latent_channels=4, resolution=64, text_len=77, text_dim=768):
        self.latents = torch.randn(size, latent_channels, resolution // 8, resolution // 8)
        self.text = torch.randn(size, text_len, text_dim)

    def __len__(self):
        return self.latents.shape[0]

    def __getitem__(self, idx):
        return {"latents": self.latents[idx], "encoder_hidden_states": self.text[idx]}


def build_dataset(args):
    return CachedLatentsDataset()
