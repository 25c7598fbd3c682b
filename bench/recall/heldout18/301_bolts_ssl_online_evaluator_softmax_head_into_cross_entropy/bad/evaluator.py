from torch import nn


class Flatten(nn.Module):
    def forward(self, x):
        return x.view(x.size(0), -1)


class LinearProbe(nn.Module):
    """Classifier fitted on frozen self-supervised representations."""

    def __init__(self, in_features, num_classes, hidden=512, drop=0.1):
        super().__init__()
        if hidden is None:
            self.head = nn.Sequential(
                Flatten(),
                nn.Dropout(p=drop),
                nn.Linear(in_features, num_classes),
                nn.Softmax(),  # expect: TCK608
            )
        else:
            self.head = nn.Sequential(
                Flatten(),
                nn.Dropout(p=drop),
                nn.Linear(in_features, hidden, bias=False),
                nn.BatchNorm1d(hidden),
                nn.ReLU(inplace=True),
                nn.Dropout(p=drop),
                nn.Linear(hidden, num_classes),
                nn.Softmax(),  # expect: TCK608
            )

    def forward(self, x):
        return self.head(x)
