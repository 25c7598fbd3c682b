import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.metrics import roc_auc_score
from torch.utils.data import DataLoader, TensorDataset

cuda = torch.cuda.is_available()


class CNN(nn.Module):
    def __init__(self, nb_filter=16, channel=7, num_classes=2, kernel_size=(4, 10), pool_size=(1, 3),
                 window_size=101, hidden_size=200):
        super().__init__()
        self.layer1 = nn.Sequential(
            nn.Conv2d(channel, nb_filter, kernel_size, stride=1),
            nn.BatchNorm2d(nb_filter),
            nn.ReLU(),
        )
        self.pool1 = nn.MaxPool2d(pool_size, stride=(1, 3))
        out1 = (window_size + 6 - kernel_size[1]) + 1
        maxpool_size = (out1 - pool_size[1]) // 3 + 1
        self.drop1 = nn.Dropout(p=0.25)
        self.fc1 = nn.Linear(maxpool_size * nb_filter, hidden_size)
        self.drop2 = nn.Dropout(p=0.25)
        self.fc2 = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        out = self.pool1(self.layer1(x))
        out = self.drop1(out.flatten(1))
        out = self.drop2(F.relu(self.fc1(out)))
        return self.fc2(out)


class Estimator:
    def __init__(self, model):
        self.model = model

    def compile(self, optimizer, loss):
        self.optimizer = optimizer
        self.loss_f = loss

    def _fit(self, train_loader):
        """Train one epoch."""
        loss_list = []
        for X, y in train_loader:
            if cuda:
                X, y = X.cuda(), y.cuda()
            self.optimizer.zero_grad()
            y_pred = self.model(X)
            loss = self.loss_f(y_pred, y)
            loss.backward()
            self.optimizer.step()
            loss_list.append(loss.item())
        return sum(loss_list) / len(loss_list)

    def fit(self, X, y, batch_size=32, nb_epoch=10):
        train_set = TensorDataset(torch.from_numpy(X.astype(np.float32)), torch.from_numpy(y.astype(np.int64)).view(-1))
        train_loader = DataLoader(dataset=train_set, batch_size=batch_size, shuffle=True)
        self.model.train()
        for epoch in range(nb_epoch):
            print(f"epoch {epoch}: loss {self._fit(train_loader):.4f}")

    def predict(self, X):
        self.model.eval()
        with torch.no_grad():
            X = torch.from_numpy(X.astype(np.float32))
            if cuda:
                X = X.cuda()
            return self.model(X)

    def evaluate(self, X, y):
        y_pred = self.predict(X)
        y_v = torch.from_numpy(y).long()
        if cuda:
            y_v = y_v.cuda()
        loss = self.loss_f(y_pred, y_v)
        auc = roc_auc_score(y, y_pred.softmax(dim=1)[:, 1].cpu().numpy())
        return loss.item(), auc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=100)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    X = rng.random((1000, 7, 4, 107)).astype(np.float32)
    y = rng.integers(0, 2, 1000)
    model = CNN()
    if cuda:
        model = model.cuda()
    clf = Estimator(model)
    clf.compile(optimizer=torch.optim.Adam(model.parameters(), lr=1e-4, weight_decay=1e-4), loss=nn.CrossEntropyLoss())
    clf.fit(X[:800], y[:800], batch_size=args.batch_size, nb_epoch=args.n_epochs)
    val_loss, val_auc = clf.evaluate(X[800:], y[800:])
    print(f"validation loss {val_loss:.4f}, AUC {val_auc:.3f}")


if __name__ == "__main__":
    main()
