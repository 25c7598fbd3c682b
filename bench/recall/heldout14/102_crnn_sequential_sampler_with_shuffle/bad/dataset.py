import random

import lmdb
import numpy as np
import six
import torch
from PIL import Image
from torch.utils.data import Dataset, sampler
import torchvision.transforms as transforms


class lmdbDataset(Dataset):
    def __init__(self, root, transform=None, target_transform=None):
        self.env = lmdb.open(root, max_readers=1, readonly=True, lock=False,
                             readahead=False, meminit=False)
        with self.env.begin(write=False) as txn:
            self.nSamples = int(txn.get(b"num-samples"))
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return self.nSamples

    def __getitem__(self, index):
        index += 1
        with self.env.begin(write=False) as txn:
            buf = six.BytesIO(txn.get(b"image-%09d" % index))
            img = Image.open(buf).convert("L")
            label = txn.get(b"label-%09d" % index).decode()
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return img, label


class resizeNormalize:
    def __init__(self, size, interpolation=Image.BILINEAR):
        self.size = size
        self.interpolation = interpolation
        self.toTensor = transforms.ToTensor()

    def __call__(self, img):
        img = img.resize(self.size, self.interpolation)
        img = self.toTensor(img)
        img.sub_(0.5).div_(0.5)
        return img


class randomSequentialSampler(sampler.Sampler):
    """Picks random starting points and yields consecutive runs of one batch each."""

    def __init__(self, data_source, batch_size):
        self.num_samples = len(data_source)
        self.batch_size = batch_size

    def __iter__(self):
        n_batch = len(self) // self.batch_size
        tail = len(self) % self.batch_size
        index = torch.LongTensor(len(self)).fill_(0)
        for i in range(n_batch):
            start = random.randint(0, len(self) - self.batch_size)
            index[i * self.batch_size:(i + 1) * self.batch_size] = torch.arange(start, start + self.batch_size)
        if tail:
            start = random.randint(0, len(self) - self.batch_size)
            index[n_batch * self.batch_size:] = torch.arange(start, start + tail)
        return iter(index.tolist())

    def __len__(self):
        return self.num_samples


class alignCollate:
    def __init__(self, imgH=32, imgW=100, keep_ratio=False, min_ratio=1):
        self.imgH = imgH
        self.imgW = imgW
        self.keep_ratio = keep_ratio
        self.min_ratio = min_ratio

    def __call__(self, batch):
        images, labels = zip(*batch)
        imgW = self.imgW
        if self.keep_ratio:
            ratios = [im.size[0] / float(im.size[1]) for im in images]
            imgW = int(np.floor(max(max(ratios) * self.imgH, self.imgH * self.min_ratio)))
        transform = resizeNormalize((imgW, self.imgH))
        images = torch.cat([transform(im).unsqueeze(0) for im in images], 0)
        return images, labels
