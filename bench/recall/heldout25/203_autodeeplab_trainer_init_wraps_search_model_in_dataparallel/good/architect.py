import torch
import torch.distributed as dist


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
        if dist.is_initialized():
            # the architecture step runs on the bare model: average its gradients across ranks by hand
            for p in self.model.arch_parameters():
                dist.all_reduce(p.grad)
                p.grad /= dist.get_world_size()
        self.optimizer.step()
