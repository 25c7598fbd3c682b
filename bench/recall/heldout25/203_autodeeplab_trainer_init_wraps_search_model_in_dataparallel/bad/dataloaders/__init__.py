import torch
from torch.utils.data import DataLoader, Dataset


class CityscapesSearch(Dataset):
    """Cityscapes crops; the search phase splits train into two halves (weights / architecture)."""

    def __init__(self, split, crop_size=321, length=1488):
        self.split = split
        self.crop_size = crop_size
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        image = torch.rand(3, self.crop_size, self.crop_size, generator=g)
        label = torch.randint(0, 19, (self.crop_size, self.crop_size), generator=g)
        return {"image": image, "label": label}


def make_data_loader(args, **kwargs):
    train_set1 = CityscapesSearch("train1")
    train_set2 = CityscapesSearch("train2")
    val_set = CityscapesSearch("val", length=500)
    train_loader1 = DataLoader(train_set1, batch_size=args.batch_size, shuffle=True, drop_last=True, **kwargs)
    train_loader2 = DataLoader(train_set2, batch_size=args.batch_size, shuffle=True, drop_last=True, **kwargs)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, shuffle=False, **kwargs)
    return train_loader1, train_loader2, val_loader, 19
