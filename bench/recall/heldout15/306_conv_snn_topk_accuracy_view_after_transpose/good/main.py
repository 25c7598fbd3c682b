import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from tqdm import tqdm

from model import ConvSNN
from utils import AverageMeter, accuracy


class Trainer:
    def __init__(self, args, train_loader, test_loader):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = ConvSNN(num_classes=10).to(self.device)
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=args.epochs)
        self.train_loader = train_loader
        self.test_loader = test_loader
        self.epochs = args.epochs

    def train_1epoch(self, epoch):
        self.model.train()
        losses, top1, top5 = AverageMeter(), AverageMeter(), AverageMeter()
        for frames, label in tqdm(self.train_loader, desc=f"epoch {epoch}"):
            frames, label = frames.to(self.device), label.to(self.device)
            output = self.model(frames)
            loss = self.criterion(output, label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            prec1, prec5 = accuracy(output.data, label, topk=(1, 5))
            losses.update(loss.item(), frames.size(0))
            top1.update(prec1.item(), frames.size(0))
            top5.update(prec5.item(), frames.size(0))
        self.scheduler.step()
        return losses.avg, top1.avg, top5.avg

    def validate(self):
        self.model.eval()
        top1 = AverageMeter()
        with torch.no_grad():
            for frames, label in self.test_loader:
                frames, label = frames.to(self.device), label.to(self.device)
                prec1, = accuracy(self.model(frames), label, topk=(1,))
                top1.update(prec1.item(), frames.size(0))
        return top1.avg

    def run(self):
        for epoch in range(self.epochs):
            loss, acc1, acc5 = self.train_1epoch(epoch)
            print(f"epoch {epoch}: loss {loss:.3f} top1 {acc1:.2f} top5 {acc5:.2f} "
                  f"test {self.validate():.2f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=500)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()
    train_set, test_set = torch.load(args.data, weights_only=False)
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=4)
    test_loader = DataLoader(test_set, batch_size=32, shuffle=False, num_workers=4)
    Trainer(args, train_loader, test_loader).run()


if __name__ == "__main__":
    main()
