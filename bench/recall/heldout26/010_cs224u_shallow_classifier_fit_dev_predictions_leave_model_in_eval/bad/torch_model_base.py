import torch
import torch.nn as nn


class TorchModelBase(object):
    """Shared hyperparameters and sklearn-style parameter handling for the course's PyTorch models."""

    def __init__(self, hidden_dim=50, hidden_activation=nn.Tanh(), batch_size=1028, max_iter=100, eta=0.01,
                 optimizer=torch.optim.Adam, l2_strength=0, device=None):
        self.hidden_dim = hidden_dim
        self.hidden_activation = hidden_activation
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.eta = eta
        self.optimizer = optimizer
        self.l2_strength = l2_strength
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        self.params = ["hidden_dim", "hidden_activation", "batch_size", "max_iter", "eta", "optimizer", "l2_strength"]
        self.errors = []
        self.dev_predictions = {}

    def get_params(self, deep=True):
        params = self.params.copy()
        if hasattr(self, "vocab"):
            params += ["vocab"]
        return {p: getattr(self, p) for p in params}

    def set_params(self, **params):
        for key, val in params.items():
            setattr(self, key, val)
        return self

    def __repr__(self):
        body = ",\n\t".join("{}={}".format(a, getattr(self, a)) for a in self.params)
        return "{}(\n\t{})".format(self.__class__.__name__, body)
