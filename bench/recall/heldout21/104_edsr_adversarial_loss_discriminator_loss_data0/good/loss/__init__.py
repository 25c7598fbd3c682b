import torch
import torch.nn as nn

from loss.adversarial import Adversarial


class Loss(nn.Module):
    """Weighted sum of the losses named in args.loss, e.g. "1*L1+0.005*GAN"; logs each term."""

    def __init__(self, args):
        super().__init__()
        self.loss = []
        self.loss_module = nn.ModuleList()
        for term in args.loss.split("+"):
            weight, loss_type = term.split("*")
            if loss_type == "MSE":
                function = nn.MSELoss()
            elif loss_type == "L1":
                function = nn.L1Loss()
            elif loss_type.find("GAN") >= 0:
                function = Adversarial(args, loss_type)
            else:
                raise ValueError(loss_type)
            self.loss.append({"type": loss_type, "weight": float(weight), "function": function})
            self.loss_module.append(function)
            if loss_type.find("GAN") >= 0:
                self.loss.append({"type": "DIS", "weight": 1, "function": None})
        self.log = torch.zeros(0, len(self.loss))

    def forward(self, sr, hr):
        losses = []
        for i, term in enumerate(self.loss):
            if term["function"] is not None:
                effective = term["weight"] * term["function"](sr, hr)
                losses.append(effective)
                self.log[-1, i] += effective.item()
            elif term["type"] == "DIS":
                self.log[-1, i] += self.loss[i - 1]["function"].loss
        return sum(losses)

    def step(self):
        for module in self.loss_module:
            if hasattr(module, "scheduler"):
                module.scheduler.step()

    def start_log(self):
        self.log = torch.cat((self.log, torch.zeros(1, len(self.loss))))

    def end_log(self, n_batches):
        self.log[-1].div_(n_batches)

    def display_loss(self, batch):
        return "".join("[{}: {:.4f}]".format(t["type"], c / (batch + 1)) for t, c in zip(self.loss, self.log[-1]))
