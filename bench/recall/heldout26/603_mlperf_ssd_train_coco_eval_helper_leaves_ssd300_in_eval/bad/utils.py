"""Default boxes, box encoding/decoding, COCO dataset and transforms for SSD300."""
import itertools
import json
import os
from math import sqrt

import numpy as np
import torch
import torch.nn.functional as F
import torchvision.transforms as transforms
from PIL import Image
from torch.utils.data import Dataset


class DefaultBoxes(object):
    def __init__(self, fig_size, feat_size, steps, scales, aspect_ratios, scale_xy=0.1, scale_wh=0.2):
        self.scale_xy = scale_xy
        self.scale_wh = scale_wh
        boxes = []
        for idx, sfeat in enumerate(feat_size):
            sk1 = scales[idx] / fig_size
            sk2 = scales[idx + 1] / fig_size
            sizes = [(sk1, sk1), (sqrt(sk1 * sk2), sqrt(sk1 * sk2))]
            for alpha in aspect_ratios[idx]:
                w, h = sk1 * sqrt(alpha), sk1 / sqrt(alpha)
                sizes += [(w, h), (h, w)]
            for w, h in sizes:
                for i, j in itertools.product(range(sfeat), repeat=2):
                    cx, cy = (j + 0.5) * steps[idx] / fig_size, (i + 0.5) * steps[idx] / fig_size
                    boxes.append((cx, cy, w, h))
        self.dboxes = torch.tensor(boxes).clamp(min=0, max=1)
        self.dboxes_ltrb = self.dboxes.clone()
        self.dboxes_ltrb[:, 0] = self.dboxes[:, 0] - 0.5 * self.dboxes[:, 2]
        self.dboxes_ltrb[:, 1] = self.dboxes[:, 1] - 0.5 * self.dboxes[:, 3]
        self.dboxes_ltrb[:, 2] = self.dboxes[:, 0] + 0.5 * self.dboxes[:, 2]
        self.dboxes_ltrb[:, 3] = self.dboxes[:, 1] + 0.5 * self.dboxes[:, 3]

    def __call__(self, order="ltrb"):
        return self.dboxes_ltrb if order == "ltrb" else self.dboxes


class Encoder(object):
    def __init__(self, dboxes):
        self.dboxes = dboxes(order="ltrb")
        self.dboxes_xywh = dboxes(order="xywh").unsqueeze(dim=0)
        self.scale_xy = dboxes.scale_xy
        self.scale_wh = dboxes.scale_wh

    def decode_batch(self, bboxes_in, scores_in, criteria=0.45, max_output=200):
        bboxes_in = bboxes_in.permute(0, 2, 1)
        scores_in = scores_in.permute(0, 2, 1)
        bboxes_in[:, :, :2] = self.scale_xy * bboxes_in[:, :, :2]
        bboxes_in[:, :, 2:] = self.scale_wh * bboxes_in[:, :, 2:]
        dboxes = self.dboxes_xywh.to(bboxes_in.device)
        bboxes_in[:, :, :2] = bboxes_in[:, :, :2] * dboxes[:, :, 2:] + dboxes[:, :, :2]
        bboxes_in[:, :, 2:] = bboxes_in[:, :, 2:].exp() * dboxes[:, :, 2:]
        output = []
        for bbox, prob in zip(bboxes_in, F.softmax(scores_in, dim=-1)):
            label = prob[:, 1:].argmax(dim=-1) + 1
            score = prob.gather(1, label.unsqueeze(1)).squeeze(1)
            keep = score.argsort(descending=True)[:max_output]
            xy, wh = bbox[keep, :2], bbox[keep, 2:]
            output.append((torch.cat([xy - wh / 2, xy + wh / 2], dim=1), label[keep], score[keep]))
        return output


class SSDTransformer(object):
    def __init__(self, dboxes, size=(300, 300), val=False):
        self.size = size
        self.val = val
        self.dboxes = dboxes
        self.img_trans = transforms.Compose([
            transforms.Resize(self.size),
            transforms.ToTensor(),
            transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
        ])

    def __call__(self, img, img_size, bbox=None, label=None, max_num=200):
        img = self.img_trans(img).contiguous()
        bbox_out = torch.zeros(max_num, 4)
        label_out = torch.zeros(max_num, dtype=torch.long)
        if bbox is not None:
            n = min(bbox.size(0), max_num)
            bbox_out[:n] = bbox[:n]
            label_out[:n] = label[:n]
        return img, img_size, bbox_out, label_out


class COCODetection(Dataset):
    def __init__(self, img_folder, annotate_file, transform=None):
        self.img_folder = img_folder
        self.transform = transform
        with open(annotate_file) as fin:
            self.data = json.load(fin)
        self.images = {img["id"]: (img["file_name"], (img["height"], img["width"]), [])
                       for img in self.data["images"]}
        self.label_map = {}
        self.label_info = {0: "background"}
        for cnt, cat in enumerate(self.data["categories"], start=1):
            self.label_map[cat["id"]] = cnt
            self.label_info[cnt] = cat["name"]
        for ann in self.data["annotations"]:
            self.images[ann["image_id"]][2].append((ann["bbox"], ann["category_id"]))
        self.img_keys = [k for k, v in self.images.items() if len(v[2]) > 0]
        self.labelnum = len(self.label_info)

    def __len__(self):
        return len(self.img_keys)

    def __getitem__(self, idx):
        img_id = self.img_keys[idx]
        fn, (htot, wtot), anns = self.images[img_id]
        img = Image.open(os.path.join(self.img_folder, fn)).convert("RGB")
        boxes = torch.tensor([[l / wtot, t / htot, (l + w) / wtot, (t + h) / htot] for (l, t, w, h), _ in anns])
        labels = torch.tensor([self.label_map[c] for _, c in anns])
        if self.transform is not None:
            img, (htot, wtot), boxes, labels = self.transform(img, (htot, wtot), boxes, labels)
        return img, (htot, wtot), boxes, labels
