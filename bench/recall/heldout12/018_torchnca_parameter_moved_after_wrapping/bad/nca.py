import numpy as np
import torch


class NCA:
    """Neighbourhood Components Analysis: learns a linear map A by SGD."""

    def __init__(self, dim=None, init="random", max_iters=500, tol=1e-5):
        self.dim = dim
        self.init = init
        self.max_iters = max_iters
        self.tol = tol
        self._mean = None
        self._stddev = None
        self._losses = None

    def __call__(self, X):
        if self._mean is not None:
            X = (X - self._mean) / self._stddev
        return torch.mm(X, torch.t(self.A))

    def _init_transformation(self):
        if self.dim is None:
            self.dim = self.num_dims
        if self.init == "random":
            a = torch.randn(self.dim, self.num_dims) * 0.01
            self.A = torch.nn.Parameter(a).to(self.device)  # expect: TCK108
        elif self.init == "identity":
            a = torch.eye(self.dim, self.num_dims)
            self.A = torch.nn.Parameter(a).to(self.device)  # expect: TCK108
        else:
            raise ValueError("[!] {} initialization is not supported.".format(self.init))

    @staticmethod
    def _pairwise_l2_sq(x):
        dot = torch.mm(x.double(), torch.t(x.double()))
        norm_sq = torch.diag(dot)
        dist = norm_sq[None, :] - 2 * dot + norm_sq[:, None]
        return torch.clamp(dist, min=0).float()

    def loss(self, X, y_mask):
        embedding = torch.mm(X, torch.t(self.A))
        distances = self._pairwise_l2_sq(embedding)
        distances.diagonal().fill_(np.inf)
        p_ij = torch.softmax(-distances, dim=1)
        p_i = (p_ij * y_mask.float()).sum(dim=1)
        classification_loss = -torch.log(torch.masked_select(p_i, p_i != 0)).sum()
        distances.diagonal().fill_(0)
        margin_diff = 1 - distances * (~y_mask).float()
        hinge_loss = torch.clamp(margin_diff, min=0).pow(2).sum(1).mean()
        return classification_loss + hinge_loss

    @property
    def losses(self):
        return self._losses

    def train(self, X, y, batch_size=None, lr=1e-4, momentum=0.9, weight_decay=10, normalize=True):
        self._losses = []
        self.num_train, self.num_dims = X.shape
        self.device = torch.device("cuda" if X.is_cuda else "cpu")
        batch_size = min(batch_size or self.num_train, self.num_train)

        self._init_transformation()

        if normalize:
            self._mean = X.mean(dim=0)
            self._stddev = X.std(dim=0)
            X = (X - self._mean) / self._stddev

        optimizer = torch.optim.SGD([self.A], lr=lr, weight_decay=weight_decay, momentum=momentum)
        iters_per_epoch = int(np.ceil(self.num_train / batch_size))
        for epoch in range(self.max_iters):
            perm = torch.randperm(len(y), device=X.device)
            X, y = X[perm], y[perm]
            A_prev = self.A.detach().clone()
            for i in range(iters_per_epoch):
                X_batch = X[i * batch_size:(i + 1) * batch_size]
                y_batch = y[i * batch_size:(i + 1) * batch_size]
                y_mask = y_batch[:, None] == y_batch[None, :]
                optimizer.zero_grad()
                loss = self.loss(X_batch, y_mask)
                loss.backward()
                optimizer.step()
                self._losses.append(loss.detach())
            if torch.all(torch.abs(A_prev - self.A.detach()) <= self.tol):
                print("[*] Optimization has converged after {} epochs.".format(epoch + 1))
                break
