import numpy as np
import torch.nn as nn

from base import Model
from callbacks import ValAccuracy


def make_net(in_features=20, num_classes=3):
    return nn.Sequential(
        nn.Linear(in_features, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(64, num_classes),
    )


def main():
    rng = np.random.default_rng(0)
    x_train, y_train = rng.normal(size=(5000, 20)), rng.integers(0, 3, 5000)
    x_val, y_val = rng.normal(size=(1000, 20)), rng.integers(0, 3, 1000)

    model = Model(make_net(), nn.CrossEntropyLoss())
    val_acc = ValAccuracy(x_val, y_val)
    model.fit(x_train, y_train, batch_size=128, epochs=20, callbacks=[val_acc])
    print(val_acc.history)


if __name__ == "__main__":
    main()
