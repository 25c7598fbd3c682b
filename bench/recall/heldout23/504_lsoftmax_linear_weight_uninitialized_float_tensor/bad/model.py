from torch import nn

from lsoftmax import LSoftmaxLinear


class EmbeddingClassifier(nn.Module):
    """A user's classifier that puts the L-Softmax layer on top of its own encoder."""

    def __init__(self, in_features, hidden, num_classes, margin, device):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(in_features, hidden), nn.PReLU(), nn.BatchNorm1d(hidden),
            nn.Linear(hidden, hidden), nn.PReLU(), nn.BatchNorm1d(hidden),
        )
        self.head = LSoftmaxLinear(input_features=hidden, output_features=num_classes, margin=margin, device=device)

    def forward(self, x, target=None):
        return self.head(self.encoder(x), target=target)
