import torch
from torch import nn


class AbsWeighting(nn.Module):
    def __init__(self):
        super().__init__()

    def _get_grads(self, losses):
        rows = []
        for loss in losses:
            params = [p for p in self.shared_parameters() if p.requires_grad]
            grads = torch.autograd.grad(loss, params, retain_graph=True)
            rows.append(torch.cat([g.reshape(-1) for g in grads]))
        return torch.stack(rows)

    def _apply_new_grads(self, alpha, grads):
        new_grad = (alpha.unsqueeze(1) * grads).sum(0)
        offset = 0
        for p in self.shared_parameters():
            n = p.numel()
            p.grad = new_grad[offset:offset + n].view_as(p).clone()
            offset += n

    def shared_parameters(self):
        raise NotImplementedError
