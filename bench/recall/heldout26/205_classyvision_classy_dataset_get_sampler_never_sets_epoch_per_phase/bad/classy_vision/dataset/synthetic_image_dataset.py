import torch

from .classy_dataset import ClassyDataset


class _RandomImages:
    def __init__(self, num_images, crop_size, num_classes):
        self.num_images, self.crop_size, self.num_classes = num_images, crop_size, num_classes

    def __len__(self):
        return self.num_images

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        return {"input": torch.rand(3, self.crop_size, self.crop_size, generator=g),
                "target": int(torch.randint(self.num_classes, (1,), generator=g))}


class SyntheticImageDataset(ClassyDataset):
    def __init__(self, split, batchsize_per_replica, shuffle, transform, num_samples, crop_size, num_classes):
        super().__init__(split, batchsize_per_replica, shuffle, transform, num_samples)
        self.dataset = _RandomImages(num_samples or 50000, crop_size, num_classes)

    @classmethod
    def from_config(cls, config):
        _, batchsize_per_replica, shuffle, num_samples = cls.parse_config(config)
        return cls(config["split"], batchsize_per_replica, shuffle, None, num_samples,
                   config.get("crop_size", 224), config.get("num_classes", 1000))
