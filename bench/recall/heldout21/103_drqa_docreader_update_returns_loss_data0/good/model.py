import logging

import torch
import torch.nn.functional as F
import torch.optim as optim

from rnn_reader import RnnDocReader

logger = logging.getLogger(__name__)


class DocReader(object):
    """Wraps the network: owns the optimizer, updates on batches, predicts spans."""

    def __init__(self, args):
        self.args = args
        self.updates = 0
        self.use_cuda = False
        self.network = RnnDocReader(args)
        self.optimizer = None

    def init_optimizer(self):
        parameters = [p for p in self.network.parameters() if p.requires_grad]
        if self.args.optimizer == "sgd":
            self.optimizer = optim.SGD(parameters, self.args.learning_rate,
                                       momentum=self.args.momentum, weight_decay=self.args.weight_decay)
        elif self.args.optimizer == "adamax":
            self.optimizer = optim.Adamax(parameters, weight_decay=self.args.weight_decay)
        else:
            raise RuntimeError("Unsupported optimizer: %s" % self.args.optimizer)

    def cuda(self):
        self.use_cuda = True
        self.network = self.network.cuda()

    def update(self, ex):
        """Forward a batch of examples; step the optimizer to update weights."""
        if not self.optimizer:
            raise RuntimeError("No optimizer set.")
        self.network.train()

        if self.use_cuda:
            inputs = [e if e is None else e.cuda(non_blocking=True) for e in ex[:5]]
            target_s = ex[5].cuda(non_blocking=True)
            target_e = ex[6].cuda(non_blocking=True)
        else:
            inputs = list(ex[:5])
            target_s, target_e = ex[5], ex[6]

        score_s, score_e = self.network(*inputs)
        loss = F.nll_loss(score_s, target_s) + F.nll_loss(score_e, target_e)

        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.network.parameters(), self.args.grad_clipping)
        self.optimizer.step()
        self.updates += 1

        return loss.item(), ex[0].size(0)

    def predict(self, ex):
        self.network.eval()
        inputs = [e if e is None or not self.use_cuda else e.cuda(non_blocking=True) for e in ex[:5]]
        with torch.no_grad():
            score_s, score_e = self.network(*inputs)
        return score_s.argmax(-1).cpu(), score_e.argmax(-1).cpu()
