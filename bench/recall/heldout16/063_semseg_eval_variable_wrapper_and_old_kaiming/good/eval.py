import numpy as np
import torch
from torch import nn

from models import ModelBuilder, SegmentationModule


def intersection_union(pred, label, num_class):
    pred = pred[label >= 0]
    label = label[label >= 0]
    inter = np.histogram(pred[pred == label], bins=num_class, range=(0, num_class - 1))[0]
    area_pred = np.histogram(pred, bins=num_class, range=(0, num_class - 1))[0]
    area_lab = np.histogram(label, bins=num_class, range=(0, num_class - 1))[0]
    return inter, area_pred + area_lab - inter


def evaluate(segmentation_module, loader, num_class, img_sizes):
    segmentation_module.eval()
    total_inter = np.zeros(num_class)
    total_union = np.zeros(num_class)
    for batch_data in loader:
        seg_label = batch_data["seg_label"][0].numpy()
        with torch.no_grad():
            seg_size = (seg_label.shape[0], seg_label.shape[1])
            pred = torch.zeros(1, num_class, seg_size[0], seg_size[1]).cuda()
            for img in batch_data["img_data"]:
                feed_dict = {"img_data": img.cuda()}
                pred_tmp = segmentation_module(feed_dict, segSize=seg_size)
                pred = pred + pred_tmp / len(img_sizes)
            pred = pred.argmax(dim=1)[0].cpu().numpy()
        inter, union = intersection_union(pred, seg_label, num_class)
        total_inter += inter
        total_union += union
    iou = total_inter / (total_union + 1e-10)
    print(f"mean IoU: {iou.mean():.4f}")


def main():
    builder = ModelBuilder()
    net_encoder = builder.build_encoder(fc_dim=512)
    net_decoder = builder.build_decoder(fc_dim=512, num_class=150, use_softmax=True)
    crit = nn.NLLLoss(ignore_index=-1)
    segmentation_module = SegmentationModule(net_encoder, net_decoder, crit).cuda()
    loader = [{"seg_label": torch.randint(0, 150, (1, 256, 256)),
               "img_data": [torch.randn(1, 3, 256, 256), torch.randn(1, 3, 384, 384)]}]
    evaluate(segmentation_module, loader, 150, img_sizes=(256, 384))


if __name__ == "__main__":
    main()
