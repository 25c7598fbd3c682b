import numpy as np


def load_mnist(n_train=6000, n_test=1000, n_features=784, n_classes=10, seed=0):
    """Stand-in for the MNIST loader: random images with random labels."""
    rng = np.random.default_rng(seed)
    tr_x = rng.random((n_train, n_features), dtype=np.float32)
    te_x = rng.random((n_test, n_features), dtype=np.float32)
    tr_y = rng.integers(0, n_classes, n_train)
    te_y = rng.integers(0, n_classes, n_test)
    return tr_x, te_x, tr_y, te_y
