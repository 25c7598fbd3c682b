import math

import torch.nn.functional as F


class CrossEntropyCriterion:
    def __init__(self, padding_idx, sentence_avg=False):
        self.padding_idx = padding_idx
        self.sentence_avg = sentence_avg

    def __call__(self, model, sample, reduce=True):
        net_output = model(sample["net_input"])
        lprobs = F.log_softmax(net_output, dim=-1).view(-1, net_output.size(-1))
        target = sample["target"].view(-1)
        loss = F.nll_loss(lprobs, target, ignore_index=self.padding_idx, reduction="sum" if reduce else "none")
        sample_size = sample["target"].size(0) if self.sentence_avg else sample["ntokens"]
        logging_output = {
            "loss": loss.item() if reduce else loss.detach(),
            "ntokens": sample["ntokens"],
            "sample_size": sample_size,
        }
        return loss, sample_size, logging_output

    @staticmethod
    def aggregate_logging_outputs(logging_outputs):
        loss_sum = sum(log.get("loss", 0) for log in logging_outputs)
        sample_size = sum(log.get("sample_size", 0) for log in logging_outputs)
        return {"loss": loss_sum / sample_size / math.log(2)}
