import torch
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler

from dataset import SequenceFrameDataset


class SequenceDataLoaderMapProvider:
    """Builds the train/val/test loaders; frames are batched by the dataset's frame type."""

    def __init__(self, batch_size=8, num_workers=2, images_per_seq_options=(2, 4)):
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.images_per_seq_options = images_per_seq_options

    def get_data_loader_map(self, datasets):
        return {split: self._make_loader(ds, split == "train") for split, ds in datasets.items()}

    def _make_loader(self, dataset, train):
        kwargs = {
            "num_workers": self.num_workers,
            "pin_memory": torch.cuda.is_available(),
            "collate_fn": dataset.frame_data_type.collate,
        }
        sampler = RandomSampler(dataset) if train else SequentialSampler(dataset)
        return DataLoader(dataset, batch_size=self.batch_size, sampler=sampler, **kwargs)


if __name__ == "__main__":
    provider = SequenceDataLoaderMapProvider()
    loaders = provider.get_data_loader_map({"train": SequenceFrameDataset(), "val": SequenceFrameDataset(2)})
    for frame_batch in loaders["train"]:
        print(frame_batch.image_rgb.shape, frame_batch.sequence_point_cloud_idx)
        break
