import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.tensorboard import SummaryWriter

from wavenet import WaveNet

use_cuda = torch.cuda.is_available()
global_step = 0
global_test_step = 0
global_epoch = 0


def sequence_mask(lengths, max_len):
    steps = torch.arange(max_len, device=lengths.device).unsqueeze(0)
    return (steps < lengths.unsqueeze(1)).float()


class MaskedCrossEntropyLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.criterion = nn.CrossEntropyLoss(reduction="none")

    def forward(self, input, target, mask):
        losses = self.criterion(input, target)
        return (losses * mask).sum() / mask.sum()


def train_step(phase, step, model, optimizer, writer, criterion, x, y, c, input_lengths, clip_thresh=1.0):
    train = phase == "train"
    model.train() if train else model.eval()
    optimizer.zero_grad()

    if use_cuda:
        x, y, c, input_lengths = x.cuda(), y.cuda(), c.cuda(), input_lengths.cuda()

    mask = sequence_mask(input_lengths, x.size(-1))[:, 1:]
    with torch.set_grad_enabled(train):
        y_hat = model(x, c)
        loss = criterion(y_hat[:, :, :-1], y[:, 1:], mask=mask)

    if train:
        loss.backward()
        grad_norm = nn.utils.clip_grad_norm_(model.parameters(), clip_thresh)
        optimizer.step()
        writer.add_scalar("gradient norm", grad_norm, step)

    writer.add_scalar("{} loss".format(phase), float(loss.data[0]), step)  # expect: TCK115
    return loss.data[0]  # expect: TCK115


def train_loop(model, data_loaders, optimizer, writer, nepochs=100):
    global global_step, global_test_step, global_epoch
    if use_cuda:
        model = model.cuda()
    criterion = MaskedCrossEntropyLoss()

    while global_epoch < nepochs:
        for phase, data_loader in data_loaders.items():
            train = phase == "train"
            running_loss = 0.0
            for x, y, c, input_lengths in data_loader:
                step = global_step if train else global_test_step
                running_loss += train_step(phase, step, model, optimizer, writer, criterion, x, y, c, input_lengths)
                if train:
                    global_step += 1
                else:
                    global_test_step += 1
            writer.add_scalar("{} loss (per epoch)".format(phase), running_loss / len(data_loader), global_epoch)
        global_epoch += 1


def make_loader(n, shuffle):
    x = torch.nn.functional.one_hot(torch.randint(0, 256, (n, 400)), 256).permute(0, 2, 1).float()
    y = torch.randint(0, 256, (n, 400))
    c = torch.randn(n, 80, 400)
    lengths = torch.randint(200, 401, (n,))
    return DataLoader(TensorDataset(x, y, c, lengths), batch_size=4, shuffle=shuffle)


if __name__ == "__main__":
    model = WaveNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loaders = {"train": make_loader(64, True), "test": make_loader(8, False)}
    train_loop(model, loaders, optimizer, SummaryWriter("log"))
