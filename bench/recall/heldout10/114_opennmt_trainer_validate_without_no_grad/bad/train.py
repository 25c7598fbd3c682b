import torch
from torch.utils.data import DataLoader, TensorDataset

from model import Seq2Seq
from trainer import Trainer


def main():
    src = torch.randint(1, 5000, (1024, 30))
    tgt = torch.randint(1, 5000, (1024, 32))
    train_iter = DataLoader(TensorDataset(src[:900], tgt[:900]), batch_size=32, shuffle=True)
    valid_iter = DataLoader(TensorDataset(src[900:], tgt[900:]), batch_size=64)
    model = Seq2Seq()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    Trainer(model, optimizer).train(train_iter, valid_iter, epochs=5)


if __name__ == "__main__":
    main()
