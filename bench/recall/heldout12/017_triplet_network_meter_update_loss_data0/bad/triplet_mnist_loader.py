import random

import torch
from torchvision import datasets, transforms


class MNIST_t(torch.utils.data.Dataset):
    """Yields (anchor, positive, negative) MNIST images."""

    def __init__(self, root, train=True):
        self.base = datasets.MNIST(root, train=train, download=True,
                                   transform=transforms.Compose([transforms.ToTensor(),
                                                                 transforms.Normalize((0.1307,), (0.3081,))]))
        self.by_label = {}
        for idx, label in enumerate(self.base.targets.tolist()):
            self.by_label.setdefault(label, []).append(idx)

    def __len__(self):
        return len(self.base)

    def __getitem__(self, idx):
        anchor, label = self.base[idx]
        positive, _ = self.base[random.choice(self.by_label[label])]
        other = random.choice([k for k in self.by_label if k != label])
        negative, _ = self.base[random.choice(self.by_label[other])]
        return anchor, positive, negative
