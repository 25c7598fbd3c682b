import torch
from torch.distributions import Categorical, MultivariateNormal

NUM_LIKELIHOOD_SAMPLES = 10


class SoftmaxLikelihood(torch.nn.Module):
    """Softmax (multiclass) likelihood for GP classification with mixed latent features."""

    def __init__(self, num_features, n_classes):
        super(SoftmaxLikelihood, self).__init__()
        self.num_features = num_features
        self.n_classes = n_classes
        self.mixing_weights = torch.nn.Parameter(torch.ones(n_classes, num_features).fill_(1.0 / num_features))

    def _samples(self, latent_func):
        samples = latent_func.rsample(sample_shape=torch.Size((NUM_LIKELIHOOD_SAMPLES,)))
        samples = samples.permute(1, 2, 0).contiguous()  # features x data x samples
        if samples.ndimension() != 3:
            raise RuntimeError("f should have 3 dimensions: features x data x samples")
        num_features, n_data, _ = samples.size()
        if num_features != self.num_features:
            raise RuntimeError("There should be %d features" % self.num_features)
        return samples, n_data

    def forward(self, latent_func):
        samples, n_data = self._samples(latent_func)
        mixed_fs = self.mixing_weights.matmul(samples.view(self.num_features, -1))
        softmax = torch.nn.functional.softmax(mixed_fs.t(), dim=-1)
        return Categorical(probs=softmax.view(n_data, NUM_LIKELIHOOD_SAMPLES, self.n_classes).mean(1))

    def variational_log_probability(self, latent_func, target):
        """Monte-Carlo estimate of sum_i log p(y_i | f_i), summed over the batch."""
        samples, n_data = self._samples(latent_func)
        mixed_fs = self.mixing_weights.matmul(samples.view(self.num_features, -1))
        log_prob = -torch.nn.functional.cross_entropy(mixed_fs.t(), target.unsqueeze(1).repeat(1, NUM_LIKELIHOOD_SAMPLES).view(-1), size_average=False)  # expect: TCK916
        return log_prob.div(NUM_LIKELIHOOD_SAMPLES)
