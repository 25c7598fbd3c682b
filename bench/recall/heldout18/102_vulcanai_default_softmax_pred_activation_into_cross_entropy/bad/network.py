import torch
import torch.nn as nn


class DenseUnit(nn.Module):
    def __init__(self, in_features, out_features, activation=None, dropout=0.0):
        super().__init__()
        layers = [nn.Linear(in_features, out_features)]
        if activation is not None:
            layers.append(activation)
        if dropout:
            layers.append(nn.Dropout(dropout))
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        return self.block(x)


class DenseNet(nn.Module):
    """Fully connected classifier that trains itself with `fit()`."""

    def __init__(self, in_dim, units=(128, 64), num_classes=None,
                 activation=nn.ReLU(), pred_activation=nn.Softmax(dim=1),
                 criterion=nn.CrossEntropyLoss(), lr=1e-3):
        super().__init__()
        layers, prev = [], in_dim
        for width in units:
            layers.append(DenseUnit(prev, width, activation=activation, dropout=0.1))
            prev = width
        self.network = nn.Sequential(*layers)
        self.num_classes = num_classes
        if num_classes:
            self.network_tail = DenseUnit(prev, num_classes, activation=pred_activation)
        self.criterion = criterion
        self.lr = lr
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def forward(self, x):
        out = self.network(x)
        if self.num_classes:
            return self.network_tail(out)
        return out

    def fit(self, train_loader, val_loader, epochs):
        self.to(self.device)
        self.optim = torch.optim.Adam(self.parameters(), lr=self.lr)
        for epoch in range(epochs):
            train_loss = self._train_epoch(train_loader)
            val_loss = self._validate(val_loader)
            print(f"epoch {epoch}: train {train_loss:.4f} val {val_loss:.4f}")

    def _train_epoch(self, loader):
        self.train()
        total = 0.0
        for data, targets in loader:
            data, targets = data.to(self.device), targets.to(self.device)
            self.optim.zero_grad()
            predictions = self(data)
            loss = self.criterion(predictions, targets)  # expect: TCK605
            loss.backward()
            self.optim.step()
            total += loss.item()
        return total / len(loader)

    @torch.no_grad()
    def _validate(self, loader):
        self.eval()
        total = 0.0
        for data, targets in loader:
            data, targets = data.to(self.device), targets.to(self.device)
            predictions = self(data)
            total += self.criterion(predictions, targets).item()  # expect: TCK605
        return total / len(loader)
