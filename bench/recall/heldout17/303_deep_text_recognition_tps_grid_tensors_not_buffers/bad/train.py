import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from transformation import TPSSpatialTransformer


class Recognizer(nn.Module):
    def __init__(self, opt, num_classes):
        super().__init__()
        self.transformation = TPSSpatialTransformer(
            opt.num_fiducial, (opt.img_h, opt.img_w), batch_size=opt.batch_size // max(opt.num_gpu, 1)
        )
        self.features = nn.Sequential(
            nn.Conv2d(1, 64, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU(True), nn.AdaptiveAvgPool2d((1, 26)),
        )
        self.rnn = nn.LSTM(128, 256, bidirectional=True, batch_first=True)
        self.head = nn.Linear(512, num_classes)

    def forward(self, images):
        x = self.transformation(images)
        x = self.features(x).squeeze(2).permute(0, 2, 1)
        x, _ = self.rnn(x)
        return self.head(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_fiducial", type=int, default=20)
    parser.add_argument("--img_h", type=int, default=32)
    parser.add_argument("--img_w", type=int, default=100)
    parser.add_argument("--batch_size", type=int, default=192)
    opt = parser.parse_args()
    opt.num_gpu = torch.cuda.device_count()

    images = torch.rand(2048, 1, opt.img_h, opt.img_w)
    labels = torch.randint(1, 37, (2048, 26))
    loader = DataLoader(TensorDataset(images, labels), batch_size=opt.batch_size, shuffle=True, num_workers=4)

    model = Recognizer(opt, num_classes=37)
    if opt.num_gpu > 1:
        model = nn.DataParallel(model)
    model = model.cuda()
    criterion = nn.CrossEntropyLoss(ignore_index=0)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)

    for epoch in range(5):
        model.train()
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            logits = model(x)
            loss = criterion(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
