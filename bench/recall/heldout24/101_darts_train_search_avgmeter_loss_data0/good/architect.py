import torch
from torch.autograd import Variable


def _flatten(tensors):
    return torch.cat([t.view(-1) for t in tensors])


class Architect(object):
    """Updates the architecture weights (alphas) on a held-out batch."""

    def __init__(self, model, args):
        self.momentum = args.momentum
        self.weight_decay = args.weight_decay
        self.model = model
        self.optimizer = torch.optim.Adam(self.model.arch_parameters(), lr=args.arch_learning_rate,
                                          betas=(0.5, 0.999), weight_decay=args.arch_weight_decay)

    def step(self, input_train, target_train, input_valid, target_valid, eta, network_optimizer, unrolled):
        self.optimizer.zero_grad()
        if unrolled:
            self._backward_unrolled(input_train, target_train, input_valid, target_valid, eta, network_optimizer)
        else:
            self.model._loss(input_valid, target_valid).backward()
        self.optimizer.step()

    def _backward_unrolled(self, input_train, target_train, input_valid, target_valid, eta, network_optimizer):
        train_loss = self.model._loss(input_train, target_train)
        theta = _flatten(self.model.parameters()).data
        grads = torch.autograd.grad(train_loss, self.model.parameters())
        dtheta = _flatten(grads).data + self.weight_decay * theta
        unrolled = self.model.new_from_flat(theta - eta * dtheta)
        unrolled._loss(input_valid, target_valid).backward()
        for alpha, grad in zip(self.model.arch_parameters(), (a.grad for a in unrolled.arch_parameters())):
            if alpha.grad is None:
                alpha.grad = Variable(grad.data)
            else:
                alpha.grad.data.copy_(grad.data)
