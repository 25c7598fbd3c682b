import argparse

import torch
import torch.utils.data

import dataset

parser = argparse.ArgumentParser()
parser.add_argument("--trainroot", required=True)
parser.add_argument("--batchSize", type=int, default=64)
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--imgH", type=int, default=32)
parser.add_argument("--imgW", type=int, default=100)
parser.add_argument("--keep_ratio", action="store_true")
parser.add_argument("--random_sample", action="store_true", help="whether to sample the dataset with random sampler")
opt = parser.parse_args()

train_dataset = dataset.lmdbDataset(root=opt.trainroot)
if not opt.random_sample:
    sampler = dataset.randomSequentialSampler(train_dataset, opt.batchSize)
else:
    sampler = None
train_loader = torch.utils.data.DataLoader(
    train_dataset, batch_size=opt.batchSize,
    shuffle=sampler is None, sampler=sampler,
    num_workers=int(opt.workers),
    collate_fn=dataset.alignCollate(imgH=opt.imgH, imgW=opt.imgW, keep_ratio=opt.keep_ratio))
