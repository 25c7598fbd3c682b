import argparse

import torch

from ssd import build_ssd

parser = argparse.ArgumentParser(description="SSD evaluation")
parser.add_argument("--trained_model", default="weights/ssd300_voc.pth")
parser.add_argument("--num_images", type=int, default=8)
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()


def test_net(net, images, thresh=0.3):
    detections_per_image = []
    with torch.no_grad():
        for img in images:
            x = img.unsqueeze(0)
            if args.cuda:
                x = x.cuda()
            detections = net(x)
            kept = []
            for cl in range(1, detections.size(1)):
                dets = detections[0, cl]
                dets = dets[dets[:, 0] > thresh]
                kept.append((cl, dets.cpu()))
            detections_per_image.append(kept)
    return detections_per_image


if __name__ == "__main__":
    net = build_ssd("test", num_classes=21)
    net.load_state_dict(torch.load(args.trained_model, map_location="cpu", weights_only=True))
    net.eval()
    if args.cuda:
        net = net.cuda()
    images = [torch.rand(3, 300, 300) for _ in range(args.num_images)]
    results = test_net(net, images)
    print("images evaluated:", len(results))
