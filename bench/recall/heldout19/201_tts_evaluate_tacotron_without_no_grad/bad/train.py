import argparse
import time

import torch
from torch.utils.data import DataLoader

from model import Tacotron
from speech_data import SpeechDataset, masked_l1

use_cuda = torch.cuda.is_available()


def train(model, criterion, loader, optimizer, step):
    model.train()
    for text, text_len, linear, mel, mel_len in loader:
        if use_cuda:
            text, linear, mel, mel_len = text.cuda(), linear.cuda(), mel.cuda(), mel_len.cuda()
        optimizer.zero_grad()
        mel_out, linear_out, _ = model(text, mel)
        loss = criterion(mel_out, mel, mel_len) + criterion(linear_out, linear, mel_len)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        step += 1
    return step


def evaluate(model, criterion, loader, step, n_priority_freq):
    model = model.eval()
    avg_linear, avg_mel = 0.0, 0.0
    start = time.time()
    for it, (text, text_len, linear, mel, mel_len) in enumerate(loader):
        if use_cuda:
            text, linear, mel, mel_len = text.cuda(), linear.cuda(), mel.cuda(), mel_len.cuda()
        mel_out, linear_out, alignments = model(text, mel)  # expect: TCK113
        mel_loss = criterion(mel_out, mel, mel_len)
        linear_loss = 0.5 * criterion(linear_out, linear, mel_len) + 0.5 * criterion(
            linear_out[:, :, :n_priority_freq], linear[:, :, :n_priority_freq], mel_len)
        avg_mel += mel_loss.item()
        avg_linear += linear_loss.item()
    print(f"validation at step {step}: {time.time() - start:.1f}s")
    return avg_linear / (it + 1), avg_mel / (it + 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="LJSpeech-1.1")
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()

    train_set = SpeechDataset(args.data, "metadata_train.csv")
    val_set = SpeechDataset(args.data, "metadata_val.csv")
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True, collate_fn=train_set.collate)
    val_loader = DataLoader(val_set, batch_size=32, collate_fn=val_set.collate)

    model = Tacotron(num_chars=len(train_set.symbols))
    if use_cuda:
        model = model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    step = 0
    for epoch in range(args.epochs):
        step = train(model, masked_l1, train_loader, optimizer, step)
        val_linear, val_mel = evaluate(model, masked_l1, val_loader, step, n_priority_freq=100)
        print(f"epoch {epoch}: val linear {val_linear:.4f} mel {val_mel:.4f}")


if __name__ == "__main__":
    main()
