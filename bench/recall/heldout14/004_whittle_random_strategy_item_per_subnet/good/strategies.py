import torch.nn.functional as F


class BaseTrainingStrategy:
    def __init__(self, sampler, loss_function=F.cross_entropy):
        self.sampler = sampler
        self.loss_function = loss_function

    def compute_loss(self, model, inputs, targets):
        return self.loss_function(model(inputs), targets)

    def __call__(self, model, inputs, targets, **kwargs):
        raise NotImplementedError


class RandomStrategy(BaseTrainingStrategy):
    """Each step accumulates the gradients of `random_samples` randomly drawn sub-networks."""

    def __init__(self, sampler, random_samples=5, **kwargs):
        super().__init__(sampler, **kwargs)
        self.random_samples = random_samples

    def __call__(self, model, inputs, targets, **kwargs):
        total_loss = 0
        for _ in range(self.random_samples):
            config = self.sampler.sample()
            model.set_sub_network(**config)
            loss = self.compute_loss(model, inputs, targets)
            loss = loss / self.random_samples
            loss.backward()
            model.reset_super_network()
            total_loss += loss.detach()
        return total_loss
