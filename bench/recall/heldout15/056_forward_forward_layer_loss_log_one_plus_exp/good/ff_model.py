import torch
from torch import nn
from torch.optim import Adam


def overlay_label(x, y, classes=10):
    """Writes the one-hot label into the first pixels of each flattened image."""
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class FFLayer(nn.Linear):
    """A layer trained locally with the forward-forward goodness objective."""

    def __init__(self, in_features, out_features, lr=0.03, threshold=2.0, num_epochs=1000):
        super().__init__(in_features, out_features)
        self.relu = nn.ReLU()
        self.opt = Adam(self.parameters(), lr=lr)
        self.threshold = threshold
        self.num_epochs = num_epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(nn.functional.linear(x_direction, self.weight, self.bias))

    def fit(self, x_pos, x_neg, log_interval=100):
        for i in range(self.num_epochs):
            g_pos = self(x_pos).pow(2).mean(1)
            g_neg = self(x_neg).pow(2).mean(1)
            # softplus of the margin: push positive goodness above, negative below the threshold
            loss = torch.log1p(
                torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))
            ).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % log_interval == 0:
                print("loss", loss.item())
        with torch.no_grad():
            return self(x_pos), self(x_neg)


class FFNet(nn.Module):
    def __init__(self, dims, **layer_kwargs):
        super().__init__()
        self.layers = nn.ModuleList(FFLayer(dims[d], dims[d + 1], **layer_kwargs) for d in range(len(dims) - 1))

    def fit(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer", i)
            h_pos, h_neg = layer.fit(h_pos, h_neg)

    @torch.no_grad()
    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_label(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness.append(h.pow(2).mean(1))
            goodness_per_label.append(sum(goodness).unsqueeze(1))
        return torch.cat(goodness_per_label, 1).argmax(1)
