import numpy as np

from config import Config
from networks import Model

rng = np.random.default_rng(0)
n_sent, n_bags, length = 2000, 400, 40
starts = np.sort(rng.choice(n_sent - 5, n_bags, replace=False))
data = {
    "word": rng.integers(0, 5000, (n_sent, length)),
    "pos1": rng.integers(0, 100, (n_sent, length)),
    "pos2": rng.integers(0, 100, (n_sent, length)),
    "scope": np.stack([starts, starts + rng.integers(0, 4, n_bags)], axis=1),
    "label": rng.integers(0, 53, n_bags),
}

con = Config(data)
con.set_train_model(Model)
con.train()
