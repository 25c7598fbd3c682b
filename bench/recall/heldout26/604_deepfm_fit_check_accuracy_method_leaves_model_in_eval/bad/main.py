import numpy as np
import torch.optim as optim
from torch.utils.data import DataLoader, sampler

from data.dataset import CriteoDataset
from model.DeepFM import DeepFM

# the first 9000 rows train, the next 1000 validate
Num_train = 9000

train_data = CriteoDataset("./data", train=True)
loader_train = DataLoader(train_data, batch_size=100, sampler=sampler.SubsetRandomSampler(range(Num_train)))
val_data = CriteoDataset("./data", train=True)
loader_val = DataLoader(val_data, batch_size=100, sampler=sampler.SubsetRandomSampler(range(Num_train, 10000)))

feature_sizes = [int(x) for x in np.loadtxt("./data/feature_sizes.txt", delimiter=",")]

model = DeepFM(feature_sizes, use_cuda=False)
optimizer = optim.Adam(model.parameters(), lr=1e-4, weight_decay=0.0)
model.fit(loader_train, loader_val, optimizer, epochs=5, verbose=True)
