import torch


class GenerateProposals(torch.nn.Module):
    """Turns RPN scores and box deltas into proposals for one feature level."""

    def __init__(self, spatial_scale=0.0625, train=False, anchor_sizes=(32,), pre_nms_top_n=None, post_nms_top_n=None):
        super().__init__()
        self.spatial_scale = spatial_scale
        self.train_mode = train
        self.anchor_sizes = anchor_sizes
        self.pre_nms_top_n = pre_nms_top_n if pre_nms_top_n is not None else (12000 if train else 6000)
        self.post_nms_top_n = post_nms_top_n if post_nms_top_n is not None else (2000 if train else 1000)

    def forward(self, cls_prob, bbox_pred, height, width, scale):
        scores = cls_prob.permute(0, 2, 3, 1).reshape(-1)
        deltas = bbox_pred.permute(0, 2, 3, 1).reshape(-1, 4)
        order = scores.argsort(descending=True)[: self.pre_nms_top_n]
        return deltas[order][: self.post_nms_top_n], scores[order][: self.post_nms_top_n]
