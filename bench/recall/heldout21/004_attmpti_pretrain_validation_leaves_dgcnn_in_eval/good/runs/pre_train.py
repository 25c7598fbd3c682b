"""Pre-training phase: a DGCNN segmenter trained on the base classes."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter

from models.dgcnn import DGCNN
from utils.checkpoint_util import save_pretrain_checkpoint


class DGCNNSeg(nn.Module):
    def __init__(self, args, num_classes):
        super().__init__()
        self.encoder = DGCNN(args.edgeconv_widths, args.dgcnn_mlp_widths, args.pc_in_dim,
                             k=args.dgcnn_k, return_edgeconvs=True)
        in_dim = args.dgcnn_mlp_widths[-1] + sum(w[-1] for w in args.edgeconv_widths)
        self.segmenter = nn.Sequential(
            nn.Conv1d(in_dim, 256, 1, bias=False),
            nn.BatchNorm1d(256),
            nn.LeakyReLU(0.2),
            nn.Conv1d(256, 128, 1),
            nn.BatchNorm1d(128),
            nn.LeakyReLU(0.2),
            nn.Dropout(0.3),
            nn.Conv1d(128, num_classes, 1),
        )

    def forward(self, pc):
        n_points = pc.shape[2]
        edge_feats, point_feat = self.encoder(pc)
        global_feat = point_feat.max(dim=-1, keepdim=True)[0]
        feats = edge_feats + [point_feat, global_feat.expand(-1, -1, n_points)]
        return self.segmenter(torch.cat(feats, dim=1))


def metric_evaluate(pred, gt, num_classes):
    pred, gt = pred.flatten().numpy(), gt.flatten().numpy()
    ious = []
    for c in range(1, num_classes):
        inter = np.sum((pred == c) & (gt == c))
        union = np.sum((pred == c) | (gt == c))
        ious.append(inter / union if union else 0.0)
    return float(np.mean(pred == gt)), float(np.mean(ious))


def pretrain(args, train_dataset, valid_dataset, num_classes):
    train_loader = DataLoader(train_dataset, batch_size=args.batch_size, num_workers=args.n_workers,
                              shuffle=True, drop_last=True)
    valid_loader = DataLoader(valid_dataset, batch_size=args.batch_size, num_workers=args.n_workers,
                              shuffle=False, drop_last=True)
    writer = SummaryWriter(log_dir=args.log_dir)

    model = DGCNNSeg(args, num_classes=num_classes)
    if torch.cuda.is_available():
        model.cuda()

    optimizer = optim.Adam([{"params": model.encoder.parameters(), "lr": args.pretrain_lr},
                            {"params": model.segmenter.parameters(), "lr": args.pretrain_lr}],
                           weight_decay=args.pretrain_weight_decay)
    lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=args.pretrain_step_size,
                                             gamma=args.pretrain_gamma)

    best_iou = 0
    global_iter = 0
    for epoch in range(args.n_iters):
        model.train()
        for batch_idx, (ptclouds, labels) in enumerate(train_loader):
            if torch.cuda.is_available():
                ptclouds, labels = ptclouds.cuda(), labels.cuda()
            logits = model(ptclouds)
            loss = F.cross_entropy(logits, labels)

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

            writer.add_scalar("Train/loss", loss.item(), global_iter)
            global_iter += 1

        lr_scheduler.step()

        if (epoch + 1) % args.eval_interval == 0:
            pred_total, gt_total = [], []
            model.eval()
            with torch.no_grad():
                for i, (ptclouds, labels) in enumerate(valid_loader):
                    gt_total.append(labels.detach())
                    if torch.cuda.is_available():
                        ptclouds, labels = ptclouds.cuda(), labels.cuda()

                    logits = model(ptclouds)
                    loss = F.cross_entropy(logits, labels)
                    pred_total.append(logits.argmax(dim=1).cpu())
                    writer.add_scalar("Valid/loss", loss.item(), global_iter)

            pred_total = torch.stack(pred_total, dim=0).view(-1, args.pc_npts)
            gt_total = torch.stack(gt_total, dim=0).view(-1, args.pc_npts)
            accuracy, miou = metric_evaluate(pred_total, gt_total, num_classes)
            print(f"===== EPOCH [{epoch}]: accuracy {accuracy:.4f} | mIoU {miou:.4f} =====")
            if miou > best_iou:
                best_iou = miou
                save_pretrain_checkpoint(model, args.log_dir)

    writer.close()
