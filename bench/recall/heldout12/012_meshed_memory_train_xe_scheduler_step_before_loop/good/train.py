import argparse

import torch
from torch.nn import NLLLoss
from torch.optim import Adam
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

from models import Transformer

VOCAB = 10000
PAD = 0


def evaluate_loss(model, dataloader, loss_fn):
    model.eval()
    running_loss = 0.0
    with torch.no_grad():
        for detections, captions in dataloader:
            detections, captions = detections.to(device), captions.to(device)
            out = model(detections, captions)[:, :-1].contiguous()
            running_loss += loss_fn(out.view(-1, VOCAB), captions[:, 1:].contiguous().view(-1)).item()
    return running_loss / len(dataloader)


def train_xe(model, dataloader, optim):
    model.train()
    running_loss = 0.0
    with tqdm(desc="Epoch %d - train" % e, unit="it", total=len(dataloader)) as pbar:
        for it, (detections, captions) in enumerate(dataloader):
            detections, captions = detections.to(device), captions.to(device)
            out = model(detections, captions)
            optim.zero_grad()
            out = out[:, :-1].contiguous()
            loss = loss_fn(out.view(-1, VOCAB), captions[:, 1:].contiguous().view(-1))
            loss.backward()
            optim.step()
            running_loss += loss.item()
            pbar.set_postfix(loss=running_loss / (it + 1))
            pbar.update()
            scheduler.step()
    return running_loss / len(dataloader)


if __name__ == "__main__":
    device = torch.device("cuda")
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10000)
    args = parser.parse_args()

    train_set = TensorDataset(torch.randn(5000, 50, 2048), torch.randint(1, VOCAB, (5000, 20)))
    val_set = TensorDataset(torch.randn(500, 50, 2048), torch.randint(1, VOCAB, (500, 20)))
    model = Transformer(VOCAB).to(device)

    def lambda_lr(s):
        s += 1
        return (model.d_model ** -0.5) * min(s ** -0.5, s * args.warmup ** -1.5)

    optim = Adam(model.parameters(), lr=1, betas=(0.9, 0.98))
    scheduler = LambdaLR(optim, lambda_lr)
    loss_fn = NLLLoss(ignore_index=PAD)

    for e in range(100):
        dataloader_train = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True)
        dataloader_val = DataLoader(val_set, batch_size=args.batch_size)
        train_loss = train_xe(model, dataloader_train, optim)
        val_loss = evaluate_loss(model, dataloader_val, loss_fn)
        print(e, train_loss, val_loss)
        torch.save({"epoch": e, "state_dict": model.state_dict(), "optimizer": optim.state_dict(),
                    "scheduler": scheduler.state_dict()}, "m2_transformer_last.pth")
