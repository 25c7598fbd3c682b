"""Train a small classifier whose hidden activation is chosen by name, as a config file would."""
import torch

from allennlp.modules.feedforward import FeedForward
from allennlp.nn import Activation

config = {"input_dim": 300, "num_layers": 2, "hidden_dims": [128, 64], "activations": "mish", "dropout": 0.1}

activation = Activation.by_name(config.pop("activations"))()
encoder = FeedForward(activations=activation, **config)
classifier = torch.nn.Sequential(encoder, torch.nn.Linear(encoder.get_output_dim(), 5))
optimizer = torch.optim.Adam(classifier.parameters(), lr=1e-3)
loss_fn = torch.nn.CrossEntropyLoss()

for step in range(100):
    x = torch.randn(32, 300)
    y = torch.randint(0, 5, (32,))
    loss = loss_fn(classifier(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
