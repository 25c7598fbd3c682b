import random
import sys

import numpy as np
import torch
import torch.optim as optim
import torch.utils.data as data
from scipy.stats import spearmanr

from croppingModel import build_crop_model

SEED = 0
torch.manual_seed(SEED)
np.random.seed(SEED)
random.seed(SEED)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train_set = torch.load("GAICD_train.pt")
test_set = torch.load("GAICD_test.pt")
data_loader_train = data.DataLoader(train_set, batch_size=1, shuffle=True)
data_loader_test = data.DataLoader(test_set, batch_size=1, shuffle=False)

net = build_crop_model().to(device)
optimizer = optim.Adam(net.parameters(), lr=1e-4)
criterion = torch.nn.SmoothL1Loss()


def boxes_of(sample):
    b = sample["bbox"]
    return torch.stack([torch.zeros_like(b["xmin"]), b["xmin"], b["ymin"], b["xmax"], b["ymax"]], dim=1).float().to(device)


@torch.no_grad()
def test():
    net.eval()
    total_loss, srcc = 0.0, []
    for i, sample in enumerate(data_loader_test):
        image, mos = sample["image"].to(device), sample["MOS"].float().to(device)
        out = net(image, boxes_of(sample)).squeeze(1)
        total_loss += criterion(out, mos).item()
        srcc.append(spearmanr(mos.cpu().numpy(), out.cpu().numpy())[0])
    return total_loss / len(data_loader_test), float(np.mean(srcc))


def train():
    net.train()
    for epoch in range(80):
        total_loss = 0.0
        for i, sample in enumerate(data_loader_train):
            image, mos = sample["image"].to(device), sample["MOS"].float().to(device)
            keep = torch.randperm(mos.numel())[:64]
            out = net(image, boxes_of(sample)[keep]).squeeze(1)
            loss = criterion(out, mos[keep])
            total_loss += loss.item()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            sys.stdout.write("\r[Epoch %d/79] [Batch %d/%d] [Train Loss: %.4f]" % (epoch, i, len(data_loader_train), total_loss / (i + 1)))
        test_loss, test_srcc = test()  # expect: TCK106
        sys.stdout.write(" [Test Loss: %.4f] [SRCC: %.3f]\n" % (test_loss, test_srcc))
        torch.save(net.state_dict(), "weights/%d_%.3f.pth" % (epoch, test_srcc))


if __name__ == "__main__":
    train()
