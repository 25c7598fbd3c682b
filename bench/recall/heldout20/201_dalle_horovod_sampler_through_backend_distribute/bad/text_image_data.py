import torch
from torch.utils.data import Dataset


class TextImageDataset(Dataset):
    """Stand-in for the folder of image/caption pairs: random tokens and images."""

    def __init__(self, size=1024, text_len=64, image_size=64, num_tokens=1000, shuffle=False):
        self.size = size
        self.text_len = text_len
        self.image_size = image_size
        self.num_tokens = num_tokens
        self.shuffle = shuffle

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(index)
        text = torch.randint(1, self.num_tokens, (self.text_len,), generator=g)
        image = torch.rand(3, self.image_size, self.image_size, generator=g)
        return text, image
