from typing import Iterator

from torch.utils.data import DistributedSampler


def cycle_dataloader(dataloader) -> Iterator:
    """Yield batches forever, restarting the loader whenever an epoch ends."""
    epoch = 0
    g = iter(dataloader)
    while True:
        try:
            yield next(g)
        except StopIteration:
            epoch += 1
            if isinstance(dataloader.sampler, DistributedSampler):
                dataloader.sampler.set_epoch(epoch)
            g = iter(dataloader)
