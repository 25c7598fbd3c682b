import numpy as np


class BaseModel:
    """Interface shared by every tabular model of the benchmark (sklearn-style and torch models)."""

    def __init__(self, params, args):
        self.params = params
        self.args = args
        self.predictions = None

    def fit(self, X, y, X_val=None, y_val=None):
        raise NotImplementedError

    def predict(self, X):
        raise NotImplementedError

    def evaluate(self, X, y):
        preds = self.predict(X)
        if self.args.objective == "classification":
            return float((np.argmax(preds, axis=1) == y).mean())
        return float(((preds.squeeze() - y) ** 2).mean())
