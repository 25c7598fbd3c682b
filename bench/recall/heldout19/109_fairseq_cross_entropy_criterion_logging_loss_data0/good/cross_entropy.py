import math

import torch.nn as nn
import torch.nn.functional as F


class CrossEntropyCriterion(nn.Module):
    def __init__(self, padding_idx, sentence_avg=False):
        super().__init__()
        self.padding_idx = padding_idx
        self.sentence_avg = sentence_avg

    def forward(self, model, sample, reduce=True):
        """Returns the summed loss, the sample size used as its denominator, and logging outputs."""
        net_output = model(**sample["net_input"])
        lprobs = F.log_softmax(net_output, dim=-1)
        lprobs = lprobs.view(-1, lprobs.size(-1))
        target = sample["target"].view(-1)
        loss = F.nll_loss(lprobs, target, size_average=False, ignore_index=self.padding_idx, reduce=reduce)
        sample_size = sample["target"].size(0) if self.sentence_avg else sample["ntokens"]
        logging_output = {
            "loss": loss.item() if reduce else loss.data,
            "ntokens": sample["ntokens"],
            "sample_size": sample_size,
        }
        return loss, sample_size, logging_output

    @staticmethod
    def aggregate_logging_outputs(logging_outputs):
        loss_sum = sum(log.get("loss", 0) for log in logging_outputs)
        sample_size = sum(log.get("sample_size", 0) for log in logging_outputs)
        return {"loss": loss_sum / sample_size / math.log(2)}
