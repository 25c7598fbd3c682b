import torch
from torch.utils.data.dataloader import default_collate


class DetectionCollateFN:
    """Collates images with default_collate and concatenates variable-length targets.

    Each target row becomes (image_index, class_id, cx, cy, w, h).
    """

    def __call__(self, batch):
        images, targets = zip(*batch)
        images = default_collate(list(images))
        rows = []
        for i, boxes in enumerate(targets):
            if boxes.numel() == 0:
                continue
            index = torch.full((boxes.shape[0], 1), float(i))
            rows.append(torch.cat([index, boxes], dim=1))
        targets = torch.cat(rows, dim=0) if rows else torch.zeros((0, 6))
        return images, targets


def xywh_to_xyxy(boxes):
    cx, cy, w, h = boxes.unbind(-1)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)
