import argparse
import os

import numpy as np
import pandas as pd
import torch
from torch import nn, optim

from model import InputAttnEncoder, TemporalAttnDecoder


class StockWindows:
    """Sliding windows over a CSV of driving series and a target column."""

    def __init__(self, csv_path, target, time_step, split):
        frame = pd.read_csv(csv_path)
        y = frame[target].to_numpy(dtype=np.float32)
        x = frame.drop(columns=[target]).to_numpy(dtype=np.float32)
        x = (x - x.mean(0)) / (x.std(0) + 1e-8)
        n = len(y) - time_step
        self.x = np.stack([x[i:i + time_step] for i in range(n)])
        self.y_seq = np.stack([y[i:i + time_step] for i in range(n)])
        self.y = y[time_step:]
        self.train_size = int(n * split)

    def num_features(self):
        return self.x.shape[2]

    def train_set(self):
        t = self.train_size
        return self.x[:t], self.y[:t], self.y_seq[:t]


class Trainer:
    def __init__(self, csv_path, target, time_step, split, lr, hidden=64):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.dataset = StockWindows(csv_path, target, time_step, split)
        self.encoder = InputAttnEncoder(self.dataset.num_features(), hidden, time_step).to(self.device)
        self.decoder = TemporalAttnDecoder(hidden, hidden, time_step).to(self.device)
        self.encoder_optim = optim.Adam(self.encoder.parameters(), lr)
        self.decoder_optim = optim.Adam(self.decoder.parameters(), lr)
        self.loss_func = nn.MSELoss()

    def to_tensor(self, array):
        return torch.from_numpy(array).float().to(self.device)

    def train_minibatch(self, num_epochs, batch_size, interval):
        x_train, y_train, y_seq_train = self.dataset.train_set()
        train_size = len(y_train)
        for epoch in range(num_epochs):
            i = 0
            loss_sum = 0
            while i < train_size:
                self.encoder_optim.zero_grad()
                self.decoder_optim.zero_grad()
                end = min(i + batch_size, train_size)
                x = self.to_tensor(x_train[i:end])
                y = self.to_tensor(y_train[i:end])
                y_seq = self.to_tensor(y_seq_train[i:end])
                y_hat = self.decoder(self.encoder(x), y_seq)
                loss = self.loss_func(y_hat, y)
                loss.backward()
                self.encoder_optim.step()
                self.decoder_optim.step()
                loss_sum += loss.data[0]  # expect: TCK115
                i = end
            print(f"epoch [{epoch}] finished, summed loss {loss_sum:.6f}")
            if (epoch + 1) % interval == 0 or epoch + 1 == num_epochs:
                os.makedirs("models", exist_ok=True)
                torch.save(self.encoder.state_dict(), f"models/encoder{epoch + 1}.pt")
                torch.save(self.decoder.state_dict(), f"models/decoder{epoch + 1}.pt")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Train DA-RNN on a stock price series")
    parser.add_argument("--csv", default="stocks/AAPL.US.csv")
    parser.add_argument("--target", default="Close")
    parser.add_argument("-e", "--epoch", type=int, default=10)
    parser.add_argument("-b", "--batch", type=int, default=128)
    parser.add_argument("-s", "--split", type=float, default=0.8)
    parser.add_argument("-i", "--interval", type=int, default=1)
    parser.add_argument("-l", "--lrate", type=float, default=0.01)
    parser.add_argument("-t", "--time_step", type=int, default=10)
    args = parser.parse_args()
    trainer = Trainer(args.csv, args.target, args.time_step, args.split, args.lrate)
    trainer.train_minibatch(args.epoch, args.batch, args.interval)
