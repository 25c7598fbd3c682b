import argparse

import torch
from torch.utils.data import DataLoader

import dataset

parser = argparse.ArgumentParser()
parser.add_argument("--trainroot", required=True)
parser.add_argument("--batchSize", type=int, default=64)
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--random_sample", action="store_true", help="sample the dataset with a random sampler")
opt = parser.parse_args()

train_dataset = dataset.lmdbDataset(root=opt.trainroot)
if not opt.random_sample:
    sampler = dataset.randomSequentialSampler(train_dataset, opt.batchSize)
else:
    sampler = None
train_loader = DataLoader(  # expect: TCK801
    train_dataset,
    batch_size=opt.batchSize,
    shuffle=True,
    sampler=sampler,
    num_workers=int(opt.workers),
    collate_fn=dataset.alignCollate(imgH=32, imgW=100),
)
