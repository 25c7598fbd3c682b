import torch


class ESRLoss(torch.nn.Module):
    """Error-to-signal ratio loss function module.

    See [Wright & Välimäki, 2019](https://arxiv.org/abs/1911.08922).
    """

    def __init__(self):  # expect: TCK603
        super(ESRLoss).__init__()

    def forward(self, input, target):
        return torch.mean(torch.abs(target - input) ** 2) / torch.mean(torch.abs(target) ** 2)


class DCLoss(torch.nn.Module):
    """DC loss function module.

    See [Wright & Välimäki, 2019](https://arxiv.org/abs/1911.08922).
    """

    def __init__(self):
        super(DCLoss, self).__init__()

    def forward(self, input, target):
        return (torch.abs(torch.mean(target - input)) ** 2) / torch.mean(torch.abs(target) ** 2)


class LogCoshLoss(torch.nn.Module):
    """Log-cosh loss function module.

    See [Chen et al., 2019](https://openreview.net/forum?id=rkglvsC9Ym).
    """

    def __init__(self, eps=1e-12):
        super(LogCoshLoss, self).__init__()
        self.eps = eps

    def forward(self, input, target):
        return torch.mean(torch.log(torch.cosh(input - target + self.eps)))
