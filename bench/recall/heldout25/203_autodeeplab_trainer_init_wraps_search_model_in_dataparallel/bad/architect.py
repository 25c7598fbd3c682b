import torch


class Architect:
    """First-order DARTS update of the architecture weights on the held-out search split."""

    def __init__(self, model, args):
        self.model = model
        self.optimizer = torch.optim.Adam(
            self.model.arch_parameters(), lr=args.arch_lr, betas=(0.9, 0.999), weight_decay=args.arch_weight_decay
        )

    def step(self, input_valid, target_valid):
        self.optimizer.zero_grad()
        loss = self.model._loss(input_valid, target_valid)
        loss.backward()
        self.optimizer.step()
