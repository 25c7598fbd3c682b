import torch


def decode(loc, priors, variances=(0.1, 0.2)):
    boxes = torch.cat(
        (
            priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:],
            priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1]),
        ),
        1,
    )
    boxes[:, :2] -= boxes[:, 2:] / 2
    boxes[:, 2:] += boxes[:, :2]
    return boxes


class Detect:
    """Turns the network's location and confidence outputs into scored boxes (test phase only)."""

    def __init__(self, num_classes, top_k, conf_thresh):
        self.num_classes = num_classes
        self.top_k = top_k
        self.conf_thresh = conf_thresh

    def __call__(self, loc_data, conf_data, prior_data):
        num = loc_data.size(0)
        output = torch.zeros(num, self.num_classes, self.top_k, 5)
        for i in range(num):
            boxes = decode(loc_data[i], prior_data)
            scores = conf_data[i].t()
            for cl in range(1, self.num_classes):
                mask = scores[cl] > self.conf_thresh
                cls_scores = scores[cl][mask]
                if cls_scores.numel() == 0:
                    continue
                cls_boxes = boxes[mask]
                keep = cls_scores.argsort(descending=True)[: self.top_k]
                output[i, cl, : keep.numel()] = torch.cat(
                    (cls_scores[keep].unsqueeze(1), cls_boxes[keep]), 1
                )
        return output
