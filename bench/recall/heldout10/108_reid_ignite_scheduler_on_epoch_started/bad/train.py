import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from baseline import Baseline
from trainer import do_train


def make_loss(score, feat, target):
    return F.cross_entropy(score, target, label_smoothing=0.1)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randn(256, 3, 128, 64), torch.randint(0, 50, (256,)))
    train_loader = DataLoader(data, batch_size=32, shuffle=True, drop_last=True)
    model = Baseline(num_classes=50)
    optimizer = torch.optim.Adam(model.parameters(), lr=3.5e-4, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[40, 70], gamma=0.1)
    do_train(model, train_loader, optimizer, scheduler, make_loss, device, epochs=120)


if __name__ == "__main__":
    main()
