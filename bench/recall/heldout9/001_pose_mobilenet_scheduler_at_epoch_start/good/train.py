import torch
import torch.optim as optim
from torch.nn import DataParallel
from torch.utils.data import DataLoader

from models.with_mobilenet import PoseEstimationWithMobileNet
from modules.loss import l2_loss


def train(dataset, base_lr, batch_size, batches_per_iter, num_epochs=280):
    net = PoseEstimationWithMobileNet(num_refinement_stages=1)
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=8)
    optimizer = optim.Adam(net.parameters(), lr=base_lr, weight_decay=5e-4)
    scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[100, 200, 260], gamma=0.333)

    net = DataParallel(net).cuda()
    net.train()
    for epoch in range(num_epochs):
        accumulated = 0
        for batch in loader:
            if accumulated == 0:
                optimizer.zero_grad()
            images = batch["image"].cuda()
            heatmaps = batch["keypoint_maps"].cuda()
            masks = batch["keypoint_mask"].cuda()
            outputs = net(images)
            loss = sum(l2_loss(out, heatmaps, masks, images.shape[0]) for out in outputs)
            loss = loss / batches_per_iter
            loss.backward()
            accumulated += 1
            if accumulated == batches_per_iter:
                optimizer.step()
                accumulated = 0
        scheduler.step()
