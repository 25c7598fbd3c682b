import os
import time
from argparse import ArgumentParser

import numpy as np
import torch
from torch.autograd import Variable
from torch.utils.data import DataLoader

from base_model import Loss
from ssd300 import SSD300
from utils import COCODetection, DefaultBoxes, Encoder, SSDTransformer


def parse_args():
    parser = ArgumentParser(description="Train Single Shot MultiBox Detector on COCO")
    parser.add_argument("--data", "-d", type=str, default="/coco")
    parser.add_argument("--epochs", "-e", type=int, default=800)
    parser.add_argument("--batch-size", "-b", type=int, default=32)
    parser.add_argument("--no-cuda", action="store_true")
    parser.add_argument("--seed", "-s", type=int)
    parser.add_argument("--threshold", "-t", type=float, default=0.212,
                        help="stop training early at this mAP")
    parser.add_argument("--iteration", type=int, default=0)
    parser.add_argument("--checkpoint", type=str, default=None)
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--evaluation", nargs="*", type=int,
                        default=[120000, 160000, 180000, 200000, 220000, 240000],
                        help="iterations at which to evaluate")
    return parser.parse_args()


def dboxes300_coco():
    figsize = 300
    feat_size = [38, 19, 10, 5, 3, 1]
    steps = [8, 16, 32, 64, 100, 300]
    scales = [21, 45, 99, 153, 207, 261, 315]
    aspect_ratios = [[2], [2, 3], [2, 3], [2, 3], [2], [2]]
    return DefaultBoxes(figsize, feat_size, steps, scales, aspect_ratios)


def coco_eval(model, coco, cocoGt, encoder, inv_map, threshold, use_cuda=True):
    """Detect on the whole validation set and return whether the COCO mAP reached `threshold`."""
    from pycocotools.cocoeval import COCOeval
    model.eval()
    if use_cuda:
        model.cuda()
    ret = []
    start = time.time()
    for idx, image_id in enumerate(coco.img_keys):
        img, (htot, wtot), _, _ = coco[idx]
        with torch.no_grad():
            inp = img.unsqueeze(0)
            if use_cuda:
                inp = inp.cuda()
            ploc, plabel = model(inp)
            try:
                result = encoder.decode_batch(ploc, plabel, 0.50, 200)[0]
            except Exception:
                print("No object detected in idx: {}".format(idx))
                continue
            loc, label, prob = [r.cpu().numpy() for r in result]
            for loc_, label_, prob_ in zip(loc, label, prob):
                ret.append([image_id, loc_[0] * wtot, loc_[1] * htot,
                            (loc_[2] - loc_[0]) * wtot, (loc_[3] - loc_[1]) * htot,
                            prob_, inv_map[label_]])
    print("Predicting ended, total time: {:.2f} s".format(time.time() - start))

    cocoDt = cocoGt.loadRes(np.array(ret))
    E = COCOeval(cocoGt, cocoDt, iouType="bbox")
    E.evaluate()
    E.accumulate()
    E.summarize()
    print("Current AP: {:.5f} AP goal: {:.5f}".format(E.stats[0], threshold))

    # back to training mode before the caller resumes the training loop
    model.train()

    return E.stats[0] >= threshold


def train300_mlperf_coco(args):
    from pycocotools.coco import COCO
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    dboxes = dboxes300_coco()
    encoder = Encoder(dboxes)
    train_trans = SSDTransformer(dboxes, (300, 300), val=False)
    val_trans = SSDTransformer(dboxes, (300, 300), val=True)

    val_annotate = os.path.join(args.data, "annotations/instances_val2017.json")
    val_coco_root = os.path.join(args.data, "val2017")
    train_annotate = os.path.join(args.data, "annotations/instances_train2017.json")
    train_coco_root = os.path.join(args.data, "train2017")

    cocoGt = COCO(annotation_file=val_annotate)
    val_coco = COCODetection(val_coco_root, val_annotate, val_trans)
    train_coco = COCODetection(train_coco_root, train_annotate, train_trans)
    train_dataloader = DataLoader(train_coco, batch_size=args.batch_size, shuffle=True, num_workers=4)

    ssd300 = SSD300(train_coco.labelnum)
    if args.checkpoint is not None:
        od = torch.load(args.checkpoint, map_location="cpu")
        ssd300.load_state_dict(od["model"])
    ssd300.train()
    if use_cuda:
        ssd300.cuda()
    loss_func = Loss(dboxes)
    if use_cuda:
        loss_func.cuda()

    optim = torch.optim.SGD(ssd300.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)

    iter_num = args.iteration
    avg_loss = 0.0
    inv_map = {v: k for k, v in val_coco.label_map.items()}

    for epoch in range(args.epochs):
        for nbatch, (img, img_size, bbox, label) in enumerate(train_dataloader):
            if iter_num == 160000:
                for param_group in optim.param_groups:
                    param_group["lr"] = 1e-4
            if iter_num == 200000:
                for param_group in optim.param_groups:
                    param_group["lr"] = 1e-5

            if use_cuda:
                img = img.cuda()
            img = Variable(img, requires_grad=True)
            ploc, plabel = ssd300(img)
            trans_bbox = bbox.transpose(1, 2).contiguous()
            if use_cuda:
                trans_bbox = trans_bbox.cuda()
                label = label.cuda()
            gloc, glabel = Variable(trans_bbox, requires_grad=False), Variable(label, requires_grad=False)
            loss = loss_func(ploc, plabel, gloc, glabel)

            if not np.isinf(loss.item()):
                avg_loss = 0.999 * avg_loss + 0.001 * loss.item()
            print("Iteration: {:6d}, Loss function: {:5.3f}, Average Loss: {:.3f}".format(
                iter_num, loss.item(), avg_loss), end="\r")

            optim.zero_grad()
            loss.backward()
            optim.step()

            if iter_num in args.evaluation:
                if not args.no_save:
                    torch.save({"model": ssd300.state_dict(), "label_map": train_coco.label_info},
                               "./models/iter_{}.pt".format(iter_num))

                if coco_eval(ssd300, val_coco, cocoGt, encoder, inv_map, args.threshold):
                    return

            iter_num += 1


def main():
    args = parse_args()
    if not os.path.isdir("./models"):
        os.mkdir("./models")
    if args.seed is not None:
        torch.manual_seed(args.seed)
        np.random.seed(seed=args.seed)
    torch.backends.cudnn.benchmark = True
    train300_mlperf_coco(args)


if __name__ == "__main__":
    main()
