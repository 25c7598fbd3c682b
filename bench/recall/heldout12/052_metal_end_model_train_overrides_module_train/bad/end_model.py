import torch.nn.functional as F
from torch import nn

from classifier import Classifier


class EndModel(Classifier):
    def __init__(self, layer_sizes, config=None):
        super().__init__(k=layer_sizes[-1], config=config)
        layers = []
        for d_in, d_out in zip(layer_sizes[:-2], layer_sizes[1:-1]):
            layers += [nn.Linear(d_in, d_out), nn.ReLU(), nn.Dropout(0.2)]
        layers.append(nn.Linear(layer_sizes[-2], layer_sizes[-1]))
        self.network = nn.Sequential(*layers)

    def forward(self, X):
        return self.network(X)

    def _get_loss_fn(self):
        return lambda X, Y: F.cross_entropy(self.forward(X), Y)

    def train(self, train_data, dev_data=None, **kwargs):  # expect: TCK610
        self.config.update(kwargs)
        X, Y = train_data
        loader = self.make_loader(X, Y, self.config["batch_size"])
        self._train(loader, self._get_loss_fn(), dev_data=dev_data)
