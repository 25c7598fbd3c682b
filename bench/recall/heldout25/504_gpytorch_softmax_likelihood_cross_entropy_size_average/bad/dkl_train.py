import torch
from torch.distributions import MultivariateNormal, kl_divergence

from softmax_likelihood import SoftmaxLikelihood


class FeatureExtractor(torch.nn.Sequential):
    def __init__(self, in_dim, num_features):
        super().__init__(
            torch.nn.Linear(in_dim, 128), torch.nn.ReLU(),
            torch.nn.Linear(128, num_features),
        )


class DKLModel(torch.nn.Module):
    """Deep kernel learning: a network feeding independent variational GPs (one per feature)."""

    def __init__(self, in_dim, num_features, n_inducing=32):
        super().__init__()
        self.feature_extractor = FeatureExtractor(in_dim, num_features)
        self.inducing = torch.nn.Parameter(torch.randn(num_features, n_inducing))
        self.q_mu = torch.nn.Parameter(torch.zeros(num_features, n_inducing))
        self.q_log_sigma = torch.nn.Parameter(torch.zeros(num_features, n_inducing))

    def kernel(self, a, b):
        return torch.exp(-0.5 * (a.unsqueeze(-1) - b.unsqueeze(-2)) ** 2)

    def forward(self, x):
        h = self.feature_extractor(x).t()  # features x data
        k_zz = self.kernel(self.inducing, self.inducing) + 1e-3 * torch.eye(self.inducing.shape[1])
        k_xz = self.kernel(h, self.inducing)
        w = torch.linalg.solve(k_zz, k_xz.transpose(-1, -2)).transpose(-1, -2)
        mean = (w * self.q_mu.unsqueeze(1)).sum(-1)
        var = ((w ** 2) * torch.exp(2 * self.q_log_sigma).unsqueeze(1)).sum(-1) + 1e-4
        return MultivariateNormal(mean, torch.diag_embed(var))

    def prior_kl(self):
        q = MultivariateNormal(self.q_mu, torch.diag_embed(torch.exp(2 * self.q_log_sigma)))
        p = MultivariateNormal(torch.zeros_like(self.q_mu), torch.diag_embed(torch.ones_like(self.q_mu)))
        return kl_divergence(q, p).sum()


def train(model, likelihood, loader, n_train, epochs=10):
    optimizer = torch.optim.Adam(list(model.parameters()) + list(likelihood.parameters()), lr=0.01)
    for epoch in range(epochs):
        model.train()
        likelihood.train()
        for x, y in loader:
            optimizer.zero_grad()
            output = model(x)
            # negative ELBO, scaled to the whole training set
            log_lik = likelihood.variational_log_probability(output, y)
            loss = -(log_lik * n_train / x.shape[0] - model.prior_kl()) / n_train
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    xs, ys = torch.randn(512, 20), torch.randint(0, 4, (512,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=64, shuffle=True)
    model = DKLModel(20, num_features=8)
    likelihood = SoftmaxLikelihood(num_features=8, n_classes=4)
    train(model, likelihood, loader, n_train=len(xs))
