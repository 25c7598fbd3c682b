import numpy as np
import torch

from nca import NCA


def make_circle(r, num_samples):
    t = np.linspace(0, 2 * np.pi, num_samples)
    x = r * np.cos(t) + 0.2 * np.random.randn(num_samples)
    y = r * np.sin(t) + 0.2 * np.random.randn(num_samples)
    return x, y


def gen_data(num_samples, num_classes, mean, std):
    per_class = num_samples // num_classes
    X, y = [], []
    for i in range(num_classes):
        x1, x2 = make_circle(i + 1.5, per_class)
        x3 = std * np.random.randn(per_class) + mean
        X.append(np.stack([x1, x2, x3]))
        y.append(np.repeat(i, per_class))
    X = np.concatenate(X, axis=1).T
    y = np.concatenate(y)
    perm = np.random.permutation(len(y))
    return X[perm], y[perm]


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    X, y = gen_data(500, 5, 0, 1.0)
    X = torch.from_numpy(X).float().to(device)
    y = torch.from_numpy(y).long().to(device)

    nca = NCA(dim=2, init="identity", max_iters=1000, tol=1e-5)
    nca.train(X, y, batch_size=64, weight_decay=10, lr=1e-4, normalize=True)
    embedding = nca(X).detach().cpu().numpy()
    print(embedding.shape)
