import argparse

import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data

import dataset


class CRNN(nn.Module):
    def __init__(self, imgH, nc, nclass, nh):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(nc, 64, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(128, 256, 3, 1, 1), nn.BatchNorm2d(256), nn.ReLU(True),
            nn.MaxPool2d((2, 2), (2, 1), (0, 1)),
            nn.Conv2d(256, 256, 3, 1, 1), nn.ReLU(True),
            nn.AdaptiveAvgPool2d((1, None)),
        )
        self.rnn = nn.LSTM(256, nh, bidirectional=True)
        self.fc = nn.Linear(nh * 2, nclass)

    def forward(self, x):
        conv = self.cnn(x).squeeze(2).permute(2, 0, 1)
        out, _ = self.rnn(conv)
        return self.fc(out)


parser = argparse.ArgumentParser()
parser.add_argument("--trainroot", required=True)
parser.add_argument("--batchSize", type=int, default=64)
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--imgH", type=int, default=32)
parser.add_argument("--imgW", type=int, default=100)
parser.add_argument("--nh", type=int, default=256)
parser.add_argument("--niter", type=int, default=25)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--alphabet", default="0123456789abcdefghijklmnopqrstuvwxyz")
parser.add_argument("--random_sample", action="store_true", help="sample the dataset with a random sampler")
parser.add_argument("--keep_ratio", action="store_true")
opt = parser.parse_args()

train_dataset = dataset.lmdbDataset(root=opt.trainroot)
if not opt.random_sample:
    sampler = dataset.randomSequentialSampler(train_dataset, opt.batchSize)
else:
    sampler = None
collate = dataset.alignCollate(imgH=opt.imgH, imgW=opt.imgW, keep_ratio=opt.keep_ratio)
train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=opt.batchSize, shuffle=sampler is None, sampler=sampler, num_workers=int(opt.workers), collate_fn=collate)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
nclass = len(opt.alphabet) + 1
crnn = CRNN(opt.imgH, 1, nclass, opt.nh).to(device)
criterion = nn.CTCLoss(zero_infinity=True)
optimizer = optim.Adadelta(crnn.parameters(), lr=opt.lr)


def encode(labels):
    lengths = torch.tensor([len(s) for s in labels], dtype=torch.long)
    targets = torch.tensor([opt.alphabet.index(c) + 1 for s in labels for c in s], dtype=torch.long)
    return targets, lengths


for epoch in range(opt.niter):
    crnn.train()
    for images, labels in train_loader:
        images = images.to(device)
        targets, target_lengths = encode(labels)
        log_probs = crnn(images).log_softmax(2)
        input_lengths = torch.full((images.size(0),), log_probs.size(0), dtype=torch.long)
        loss = criterion(log_probs, targets, input_lengths, target_lengths)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
