import torch


def bbox_overlaps(bboxes1, bboxes2, eps=1e-6):
    lt = torch.max(bboxes1[:, None, :2], bboxes2[None, :, :2])
    rb = torch.min(bboxes1[:, None, 2:], bboxes2[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    overlap = wh[..., 0] * wh[..., 1]
    area1 = (bboxes1[:, 2] - bboxes1[:, 0]) * (bboxes1[:, 3] - bboxes1[:, 1])
    area2 = (bboxes2[:, 2] - bboxes2[:, 0]) * (bboxes2[:, 3] - bboxes2[:, 1])
    return overlap / (area1[:, None] + area2[None, :] - overlap + eps)


class MaxIoUAssigner:
    def __init__(self, pos_iou_thr=0.5):
        self.pos_iou_thr = pos_iou_thr

    def assign(self, pred_boxes, gt_boxes):
        with torch.cuda.amp.autocast(enabled=False):  # expect: TCK301
            overlaps = bbox_overlaps(pred_boxes.float(), gt_boxes.float())
        max_overlaps, argmax = overlaps.max(dim=1)
        return torch.where(max_overlaps >= self.pos_iou_thr, argmax + 1, torch.zeros_like(argmax))
