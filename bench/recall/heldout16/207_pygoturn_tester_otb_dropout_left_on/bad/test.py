import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F

import model

use_gpu = torch.cuda.is_available()
parser = argparse.ArgumentParser(description="GOTURN testing")
parser.add_argument("-weights", "--model-weights", default="checkpoints/model_best.pth")
parser.add_argument("-data", "--data-directory", default="data/OTB/Girl")


def crop_and_scale(frame, box, size=227):
    """Crop twice the box around its centre and rescale to size x size (CHW float tensor)."""
    x1, y1, x2, y2 = box
    cx, cy, w, h = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1), (y2 - y1)
    _, H, W = frame.shape
    left, top = int(max(0, cx - w)), int(max(0, cy - h))
    right, bottom = int(min(W, cx + w)), int(min(H, cy + h))
    crop = frame[:, top:bottom, left:right].unsqueeze(0)
    return F.interpolate(crop, size=(size, size), mode="bilinear", align_corners=False)[0]


class TesterOTB:
    """Tracks the target of one OTB-formatted sequence frame by frame."""

    def __init__(self, root_dir, model_path):
        self.model = model.GoNet()
        if use_gpu:
            self.model = self.model.cuda()
        self.model.load_state_dict(torch.load(model_path, map_location="cpu", weights_only=True))
        self.frames = sorted(os.path.join(root_dir, "img", f) for f in os.listdir(os.path.join(root_dir, "img")))
        with open(os.path.join(root_dir, "groundtruth_rect.txt")) as f:
            x, y, w, h = [float(v) for v in f.readline().strip().split("\t")]
        self.prev_rect = np.array([x, y, x + w, y + h])

    def load_frame(self, path):
        return torch.from_numpy(np.load(path)).permute(2, 0, 1).float() / 255.0

    def get_rect(self, prev, curr):
        x1 = crop_and_scale(prev, self.prev_rect)[None]
        x2 = crop_and_scale(curr, self.prev_rect)[None]
        if use_gpu:
            x1, x2 = x1.cuda(), x2.cuda()
        with torch.no_grad():
            y = self.model(x1, x2)  # expect: TCK114
        bb = y[0].cpu().numpy() * (227.0 / 10)
        w, h = self.prev_rect[2] - self.prev_rect[0], self.prev_rect[3] - self.prev_rect[1]
        left, top = self.prev_rect[0] - w / 2, self.prev_rect[1] - h / 2
        return np.array([left + bb[0] * 2 * w / 227, top + bb[1] * 2 * h / 227,
                         left + bb[2] * 2 * w / 227, top + bb[3] * 2 * h / 227])

    def test(self):
        boxes = []
        for i in range(len(self.frames) - 1):
            prev = self.load_frame(self.frames[i])
            curr = self.load_frame(self.frames[i + 1])
            bb = self.get_rect(prev, curr)
            boxes.append(bb)
            self.prev_rect = bb
        return np.stack(boxes)


def main():
    args = parser.parse_args()
    tester = TesterOTB(args.data_directory, args.model_weights)
    boxes = tester.test()
    print(boxes.shape)


if __name__ == "__main__":
    main()
