import torch.optim as optim
from torch.utils.data import DataLoader

from losses import fpn_loss
from models import FPN
from utils import gpu_dtype, train


def main(train_data, h, w, epochs=1000):
    loader_train = DataLoader(train_data, batch_size=2)
    fpn = FPN(h, w).type(gpu_dtype)
    lr = 5e-4
    for i in range(epochs):
        if i > 0 and i % 20 == 0:
            lr *= 0.95
        optimizer = optim.Adam(fpn.parameters(), lr=lr, weight_decay=0.0)
        train(loader_train, fpn, fpn_loss, optimizer, print_every=10)
