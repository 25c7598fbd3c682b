import numpy as np

CONTINUOUS = "continuous"


class TganTransformer:
    """Min-max scales continuous columns and one-hot encodes categorical ones."""

    def __init__(self, meta):
        self.meta = meta

    def fit(self, data):
        self.output_info = []
        self.output_dim = 0
        self.ranges = []
        for idx, info in enumerate(self.meta):
            if info["type"] == CONTINUOUS:
                self.ranges.append((data[:, idx].min(), data[:, idx].max()))
                self.output_info.append((1, "tanh"))
                self.output_dim += 1
            else:
                self.ranges.append(None)
                self.output_info.append((info["size"], "softmax"))
                self.output_dim += info["size"]

    def transform(self, data):
        values = []
        for idx, info in enumerate(self.meta):
            col = data[:, idx]
            if info["type"] == CONTINUOUS:
                lo, hi = self.ranges[idx]
                values.append((2 * (col - lo) / (hi - lo + 1e-8) - 1).reshape(-1, 1))
            else:
                onehot = np.zeros((len(data), info["size"]))
                onehot[np.arange(len(data)), col.astype("int64")] = 1
                values.append(onehot)
        return values

    def inverse_transform(self, columns):
        out = np.zeros((len(columns[0]), len(self.meta)))
        for idx, info in enumerate(self.meta):
            if info["type"] == CONTINUOUS:
                lo, hi = self.ranges[idx]
                out[:, idx] = (columns[idx].reshape(-1) + 1) / 2 * (hi - lo) + lo
            else:
                out[:, idx] = np.argmax(columns[idx], axis=1)
        return out
