import torch
from torch import nn


class LabelModel(nn.Module):
    def __init__(self, num_classes, num_lfs):
        super().__init__()
        self.accuracy = nn.Parameter(torch.zeros(num_lfs))
        self.class_balance = nn.Parameter(torch.zeros(num_classes))

    def _get_norm_loss(self, votes):
        return -(votes.float() @ self.accuracy).logsumexp(0) + self.class_balance.norm()

    def _do_estimate_label_model(self, batches, config):
        optimizer = torch.optim.SGD(self.parameters(), lr=config.step_size, momentum=config.momentum)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=config.step_schedule, gamma=config.step_multiplier)
        for epoch in range(config.epochs):
            running_loss = 0.0
            for i_batch, inputs in enumerate(batches):
                optimizer.zero_grad()
                loss = self._get_norm_loss(inputs)
                loss.backward()
                optimizer.step()
                running_loss += loss  # expect: TCK101
            epoch_loss = running_loss / len(batches)
            print(f"epoch {epoch}: loss {float(epoch_loss):.4f}")
            scheduler.step()
