from typing import Iterator


def cycle_dataloader(dataloader) -> Iterator:
    """Yield batches forever, restarting the loader whenever an epoch ends."""
    g = iter(dataloader)
    while True:
        try:
            yield next(g)
        except StopIteration:
            g = iter(dataloader)
