# -*- coding: utf-8 -*-
"""DeepFM for click-through-rate prediction: a factorisation machine and an MLP sharing embeddings."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class DeepFM(nn.Module):
    def __init__(self, feature_sizes, embedding_size=4, hidden_dims=[32, 32], num_classes=1,
                 dropout=[0.5, 0.5], use_cuda=True, verbose=False):
        super().__init__()
        self.field_size = len(feature_sizes)
        self.feature_sizes = feature_sizes
        self.embedding_size = embedding_size
        self.hidden_dims = hidden_dims
        self.num_classes = num_classes
        self.dtype = torch.long
        self.bias = torch.nn.Parameter(torch.randn(1))
        if use_cuda and torch.cuda.is_available():
            self.device = torch.device("cuda")
        else:
            self.device = torch.device("cpu")

        # factorisation-machine part
        self.fm_first_order_embeddings = nn.ModuleList(
            [nn.Embedding(size, 1) for size in self.feature_sizes])
        self.fm_second_order_embeddings = nn.ModuleList(
            [nn.Embedding(size, self.embedding_size) for size in self.feature_sizes])

        # deep part: linear -> batch norm -> dropout per hidden layer
        all_dims = [self.field_size * self.embedding_size] + self.hidden_dims
        for i in range(1, len(hidden_dims) + 1):
            setattr(self, "linear_" + str(i), nn.Linear(all_dims[i - 1], all_dims[i]))
            setattr(self, "batchNorm_" + str(i), nn.BatchNorm1d(all_dims[i]))
            setattr(self, "dropout_" + str(i), nn.Dropout(dropout[i - 1]))

    def forward(self, Xi, Xv):
        first = [(torch.sum(emb(Xi[:, i, :]), 1).t() * Xv[:, i]).t()
                 for i, emb in enumerate(self.fm_first_order_embeddings)]
        f1 = torch.cat(first, 1)

        # pairwise interactions: 2xy = (x + y)^2 - (x^2 + y^2)
        xv = torch.stack([(torch.sum(emb(Xi[:, i, :]), 1).t() * Xv[:, i]).t()
                          for i, emb in enumerate(self.fm_second_order_embeddings)], dim=1)
        f2 = 0.5 * (torch.sum(xv, dim=1).pow(2.0) - torch.sum(xv.pow(2.0), dim=1))

        deep_out = torch.flatten(xv, start_dim=1)
        for i in range(1, len(self.hidden_dims) + 1):
            deep_out = F.relu(getattr(self, "linear_" + str(i))(deep_out))
            deep_out = getattr(self, "batchNorm_" + str(i))(deep_out)
            deep_out = getattr(self, "dropout_" + str(i))(deep_out)

        return torch.sum(f1, 1) + torch.sum(f2, 1) + torch.sum(deep_out, 1) + self.bias

    def fit(self, loader_train, loader_val, optimizer, epochs=100, verbose=False, print_every=100):
        """Train with binary cross-entropy and print validation accuracy every `print_every` batches."""
        model = self.train().to(device=self.device)
        criterion = F.binary_cross_entropy_with_logits

        for _ in range(epochs):
            for t, (xi, xv, y) in enumerate(loader_train):
                xi = xi.to(device=self.device, dtype=self.dtype)
                xv = xv.to(device=self.device, dtype=torch.float)
                y = y.to(device=self.device, dtype=torch.float)

                total = model(xi, xv)
                loss = criterion(total, y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

                if verbose and t % print_every == 0:
                    print("Iteration %d, loss = %.4f" % (t, loss.item()))
                    self.check_accuracy(loader_val, model)
                    model.train()
                    print()

    def check_accuracy(self, loader, model):
        if loader.dataset.train:
            print("Checking accuracy on validation set")
        else:
            print("Checking accuracy on test set")
        num_correct = 0
        num_samples = 0
        model.eval()
        with torch.no_grad():
            for xi, xv, y in loader:
                xi = xi.to(device=self.device, dtype=self.dtype)
                xv = xv.to(device=self.device, dtype=torch.float)
                y = y.to(device=self.device, dtype=torch.bool)
                total = model(xi, xv)
                preds = torch.sigmoid(total) > 0.5
                num_correct += (preds == y).sum()
                num_samples += preds.size(0)
            acc = float(num_correct) / num_samples
            print("Got %d / %d correct (%.2f%%)" % (num_correct, num_samples, 100 * acc))
