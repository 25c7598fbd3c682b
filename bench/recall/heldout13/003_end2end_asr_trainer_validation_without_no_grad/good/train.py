import torch
from torch.utils.data import DataLoader, TensorDataset

from model import Transformer
from trainer import Trainer


def fake_split(n, frames=200, n_mels=80, tgt_len=40, vocab=100):
    src = torch.randn(n, frames, n_mels)
    tgt = torch.randint(1, vocab, (n, tgt_len))
    lengths = torch.full((n,), frames)
    return TensorDataset(src, tgt, lengths)


def main():
    model = Transformer()
    if torch.cuda.is_available():
        model = model.cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    train_loader = DataLoader(fake_split(512), batch_size=8, shuffle=True)
    valid_loader_list = [DataLoader(fake_split(64), batch_size=8), DataLoader(fake_split(64), batch_size=8)]
    Trainer().train(model, train_loader, valid_loader_list, opt, start_epoch=0, num_epochs=50)


if __name__ == "__main__":
    main()
