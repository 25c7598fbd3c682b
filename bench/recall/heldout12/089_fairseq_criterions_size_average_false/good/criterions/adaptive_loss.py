import torch.nn.functional as F


class AdaptiveLoss:
    def __init__(self, padding_idx):
        self.padding_idx = padding_idx

    def __call__(self, model, sample, reduce=True):
        adaptive_softmax = model.adaptive_softmax
        net_output = model(sample["net_input"])
        orig_target = sample["target"].view(-1)
        bsz = orig_target.size(0)
        logits, target = adaptive_softmax(net_output, orig_target)
        loss = net_output.new_zeros(1 if reduce else bsz)
        for i in range(len(target)):
            if target[i] is not None:
                assert target[i].min() >= 0 and target[i].max() <= logits[i].size(1)
                loss += F.cross_entropy(logits[i], target[i], ignore_index=self.padding_idx, reduction="sum" if reduce else "none")
        sample_size = sample["ntokens"]
        return loss, sample_size, {"loss": loss.item() if reduce else loss.detach(), "sample_size": sample_size}
