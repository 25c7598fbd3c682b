import glob
import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


class CVPPPDataset(Dataset):
    """Leaf images with instance labels; returns two augmented views and the labels."""

    def __init__(self, root, phase):
        self.images = sorted(glob.glob(os.path.join(root, phase, "*_rgb.png")))
        self.phase = phase

    def __len__(self):
        return len(self.images)

    def _augment(self, img):
        if self.phase == "train":
            img = img * (0.8 + 0.4 * torch.rand(3, 1, 1)) + 0.05 * torch.randn_like(img)
        return img

    def __getitem__(self, idx):
        img = np.asarray(Image.open(self.images[idx]).convert("RGB"), dtype=np.float32) / 255.0
        label = np.asarray(Image.open(self.images[idx].replace("_rgb", "_label")), dtype=np.int64)
        img = torch.from_numpy(img).permute(2, 0, 1)
        return self._augment(img), self._augment(img), torch.from_numpy(label)


def contrastive_loss(embeddings, target, delta_var=0.5, delta_dist=2.0):
    """Discriminative pull/push loss on the query embeddings, plus consistency with the key embeddings."""
    emb_q, emb_k = embeddings
    total = emb_q.new_zeros(())
    for e, t in zip(emb_q, target):
        ids = [i for i in torch.unique(t).tolist() if i != 0]
        if not ids:
            continue
        means = torch.stack([e[:, t == i].mean(dim=1) for i in ids])
        pull = sum(torch.clamp((e[:, t == i] - m[:, None]).norm(dim=0) - delta_var, min=0).pow(2).mean()
                   for i, m in zip(ids, means)) / len(ids)
        push = torch.clamp(2 * delta_dist - torch.cdist(means, means), min=0).pow(2)
        push = (push.sum() - push.diagonal().sum()) / max(len(ids) * (len(ids) - 1), 1)
        total = total + pull + push
    consistency = (1 - torch.nn.functional.cosine_similarity(emb_q, emb_k, dim=1)).mean()
    return total / emb_q.size(0) + consistency
