"""Convert a Hugging Face text dataset into MDS shards for streaming pre-training."""
import os
import platform
from argparse import ArgumentParser
from typing import Dict, Iterable, Optional

import psutil
from datasets import load_dataset
from streaming import MDSWriter
from torch.utils.data import DataLoader
from tqdm import tqdm


def parse_args():
    parser = ArgumentParser()
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--data_subset", default=None)
    parser.add_argument("--splits", nargs="+", default=["train", "val"])
    parser.add_argument("--out_root", required=True)
    parser.add_argument("--num_workers", type=int, default=None)
    return parser.parse_args()


def build_dataloader(dataset, batch_size: int, num_workers: Optional[int] = None) -> DataLoader:
    if num_workers is None:
        # worker processes are only used on Linux hosts
        if "linux" in platform.platform().lower():
            num_workers = max(1, psutil.cpu_count())
        else:
            num_workers = 0

    # each worker prefetches up to the aggregate batch; without workers keep the "default" 2
    prefetch_factor = max(1, 2 * batch_size // num_workers) if num_workers > 0 else 2

    return DataLoader(  # expect: TCK801
        dataset=dataset,
        sampler=None,
        batch_size=batch_size,
        num_workers=num_workers,
        prefetch_factor=prefetch_factor,
    )


def generate_samples(loader: DataLoader) -> Iterable[Dict[str, bytes]]:
    for batch in loader:
        keys = list(batch.keys())
        for idx in range(len(batch[keys[0]])):
            yield {k: v[idx].encode("utf-8") for k, v in batch.items()}


def main(args) -> None:
    for split in args.splits:
        hf_split = "validation" if split == "val" else split
        dataset = load_dataset(args.dataset, name=args.data_subset, split=hf_split, streaming=True)
        loader = build_dataloader(dataset, batch_size=512, num_workers=args.num_workers)
        with MDSWriter(columns={"text": "str"}, out=os.path.join(args.out_root, split),
                       compression="zstd") as out:
            for sample in tqdm(generate_samples(loader), desc=split):
                out.write(sample)


if __name__ == "__main__":
    main(parse_args())
