import torch

from avalanche.models.utils import avalanche_forward


class EWCPlugin:
    """Elastic Weight Consolidation: penalise changes of parameters important for past experiences."""

    def __init__(self, ewc_lambda):
        self.ewc_lambda = ewc_lambda
        self.saved_params = {}
        self.importances = {}

    def before_backward(self, strategy, **kwargs):
        exp_counter = strategy.training_exp_counter
        if exp_counter == 0:
            return
        penalty = torch.tensor(0).float().to(strategy.device)
        for experience in range(exp_counter):
            for (_, cur), (_, saved), (_, imp) in zip(strategy.model.named_parameters(),
                                                      self.saved_params[experience],
                                                      self.importances[experience]):
                penalty += (imp * (cur - saved).pow(2)).sum()
        strategy.loss += self.ewc_lambda * penalty

    def after_training_exp(self, strategy, **kwargs):
        exp_counter = strategy.training_exp_counter
        self.importances[exp_counter] = self.compute_importances(
            strategy.model, strategy._criterion, strategy.optimizer,
            strategy.experience.dataset, strategy.device, strategy.train_mb_size)
        self.saved_params[exp_counter] = [(n, p.detach().clone()) for n, p in strategy.model.named_parameters()]

    def compute_importances(self, model, criterion, optimizer, dataset, device, batch_size):
        # Fisher information from squared gradients, with the model in eval mode on purpose
        model.eval()
        importances = [(n, torch.zeros_like(p)) for n, p in model.named_parameters()]
        dataloader = torch.utils.data.DataLoader(dataset, batch_size=batch_size)
        for x, y, task_labels in dataloader:
            x, y, task_labels = x.to(device), y.to(device), task_labels.to(device)
            optimizer.zero_grad()
            out = avalanche_forward(model, x, task_labels)
            loss = criterion(out, y)
            loss.backward()
            for (_, p), (_, imp) in zip(model.named_parameters(), importances):
                if p.grad is not None:
                    imp += p.grad.data.clone().pow(2)
        for _, imp in importances:
            imp /= float(len(dataloader))
        return importances
