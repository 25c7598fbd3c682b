import torch.nn as nn


class Loss(object):
    """Wraps a torch criterion and accumulates its value over the batches of an epoch."""

    def __init__(self, name, short_name, inputs, criterion):
        if not isinstance(criterion, nn.modules.loss._Loss):
            raise ValueError("criterion has to be a torch loss module")
        self.name = name
        self.short_name = short_name
        self.inputs = inputs
        self.criterion = criterion
        self.acc_loss = 0
        self.norm_term = 0

    def reset(self):
        self.acc_loss = 0
        self.norm_term = 0

    def backward(self, retain_graph=False):
        if isinstance(self.acc_loss, int):
            raise ValueError("no loss to back propagate")
        self.acc_loss.backward(retain_graph=retain_graph)

    def scale_loss(self, factor):
        self.acc_loss *= factor


class NLLLoss(Loss):
    """Negative log-likelihood of the decoder outputs, averaged over the batches."""

    NAME = "Avg NLLLoss"
    SHORT_NAME = "nll_loss"

    def __init__(self, ignore_index=-1, size_average=True):
        self.ignore_index = ignore_index
        self.size_average = size_average
        super(NLLLoss, self).__init__(
            self.NAME, self.SHORT_NAME, "decoder_output",
            nn.NLLLoss(ignore_index=ignore_index, size_average=size_average))  # expect: TCK916

    def get_loss(self):
        if isinstance(self.acc_loss, int):
            return 0
        loss = self.acc_loss.item()
        if self.size_average:
            loss /= self.norm_term
        return loss

    def eval_batch(self, step_outputs, target):
        batch_size = target.size(0)
        outputs = step_outputs.contiguous().view(batch_size, -1)
        self.acc_loss += self.criterion(outputs, target)
        self.norm_term += 1


class Perplexity(NLLLoss):
    """Language-model perplexity: the summed NLL divided by the number of scored tokens."""

    NAME = "Perplexity"
    SHORT_NAME = "ppl"

    def __init__(self, ignore_index=-100):
        super(Perplexity, self).__init__(ignore_index=ignore_index, size_average=False)

    def eval_batch(self, step_outputs, target):
        self.acc_loss += self.criterion(step_outputs, target)
        if self.ignore_index == -100:
            self.norm_term += target.numel()
        else:
            self.norm_term += target.ne(self.ignore_index).sum().item()
