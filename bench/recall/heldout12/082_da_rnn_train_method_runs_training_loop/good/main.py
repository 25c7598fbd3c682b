import argparse

import numpy as np
import pandas as pd

from model import DA_RNN


def read_data(path):
    df = pd.read_csv(path)
    X = df.loc[:, [c for c in df.columns if c != "NDX"]].to_numpy(dtype=np.float32)
    y = df["NDX"].to_numpy(dtype=np.float32)
    return X, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataroot", default="nasdaq100_padding.csv")
    parser.add_argument("--ntimestep", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    X, y = read_data(args.dataroot)
    model = DA_RNN(X, y, args.ntimestep, 64, 64, 128, 0.001, args.epochs)
    model.fit()

    model.eval()
    y_pred = model.test()
    print("test MSE:", float(np.mean((y_pred - y[model.train_timesteps:model.train_timesteps + len(y_pred)]) ** 2)))


if __name__ == "__main__":
    main()
