import argparse

import torch
import torch.optim as optim

from triplet_mnist_loader import MNIST_t
from tripletnet import EmbeddingNet, Tripletnet


class AverageMeter:
    """Computes and stores the average and current value."""

    def __init__(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(dista, distb):
    pred = (dista - distb).detach().cpu()
    return float((pred > 0).sum()) / dista.size(0)


def train(train_loader, tnet, criterion, optimizer, epoch, device, log_interval):
    losses = AverageMeter()
    accs = AverageMeter()
    emb_norms = AverageMeter()
    tnet.train()
    for batch_idx, (data1, data2, data3) in enumerate(train_loader):
        data1, data2, data3 = data1.to(device), data2.to(device), data3.to(device)
        dista, distb, embedded_x, embedded_y, embedded_z = tnet(data1, data2, data3)
        target = torch.ones_like(dista)

        loss_triplet = criterion(dista, distb, target)
        loss_embedd = embedded_x.norm(2) + embedded_y.norm(2) + embedded_z.norm(2)
        loss = loss_triplet + 0.001 * loss_embedd

        acc = accuracy(dista, distb)
        losses.update(loss_triplet.item(), data1.size(0))
        accs.update(acc, data1.size(0))
        emb_norms.update(loss_embedd.item() / 3, data1.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if batch_idx % log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data1)}/{len(train_loader.dataset)}]\t"
                  f"Loss: {losses.val:.4f} ({losses.avg:.4f})\tAcc: {100. * accs.avg:.2f}%\t"
                  f"Emb_Norm: {emb_norms.val:.2f} ({emb_norms.avg:.2f})")


def test(test_loader, tnet, criterion, device):
    losses = AverageMeter()
    accs = AverageMeter()
    tnet.eval()
    with torch.no_grad():
        for data1, data2, data3 in test_loader:
            data1, data2, data3 = data1.to(device), data2.to(device), data3.to(device)
            dista, distb, _, _, _ = tnet(data1, data2, data3)
            target = torch.ones_like(dista)
            test_loss = criterion(dista, distb, target).item()
            accs.update(accuracy(dista, distb), data1.size(0))
            losses.update(test_loss, data1.size(0))
    print(f"\nTest set: Average loss: {losses.avg:.4f}, Accuracy: {100. * accs.avg:.2f}%\n")
    return accs.avg


def main():
    parser = argparse.ArgumentParser(description="Triplet network on MNIST")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.5)
    parser.add_argument("--margin", type=float, default=0.2)
    parser.add_argument("--log-interval", type=int, default=20)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader = torch.utils.data.DataLoader(MNIST_t("data", train=True), batch_size=64, shuffle=True)
    test_loader = torch.utils.data.DataLoader(MNIST_t("data", train=False), batch_size=64, shuffle=True)

    tnet = Tripletnet(EmbeddingNet()).to(device)
    criterion = torch.nn.MarginRankingLoss(margin=args.margin)
    optimizer = optim.SGD(tnet.parameters(), lr=args.lr, momentum=args.momentum)

    best_acc = 0.0
    for epoch in range(1, args.epochs + 1):
        train(train_loader, tnet, criterion, optimizer, epoch, device, args.log_interval)
        acc = test(test_loader, tnet, criterion, device)
        if acc > best_acc:
            best_acc = acc
            torch.save({"epoch": epoch, "state_dict": tnet.state_dict(), "best_acc": best_acc}, "model_best.pth")


if __name__ == "__main__":
    main()
