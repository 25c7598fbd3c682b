import argparse

import torch
from apex import amp
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

from vae import GeneralVae, vae_loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-parallel", action="store_true")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    model = GeneralVae(rep_size=500).cuda()
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    model, optimizer = amp.initialize(model, optimizer, opt_level="O2")
    if args.data_parallel and torch.cuda.device_count() > 1:
        print(f"Let's use {torch.cuda.device_count()} GPUs!")
        model = nn.DataParallel(model)  # expect: TCK204

    images = torch.rand(2048, 3, 64, 64)
    loader = DataLoader(TensorDataset(images), batch_size=64, shuffle=True)
    for epoch in range(args.epochs):
        model.train()
        train_loss = 0.0
        for (data,) in loader:
            data = data.cuda(non_blocking=True)
            optimizer.zero_grad()
            recon, mu, logvar = model(data)
            loss = vae_loss(recon, data, mu, logvar)
            with amp.scale_loss(loss, optimizer) as scaled_loss:
                scaled_loss.backward()
            optimizer.step()
            train_loss += loss.item()
        print(f"epoch {epoch}: loss {train_loss / len(loader):.4f}")


if __name__ == "__main__":
    main()
