import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import torchvision

from generators import ResnetGenerator

parser = argparse.ArgumentParser(description="generative adversarial perturbations against a classifier")
parser.add_argument("--batchSize", type=int, default=16)
parser.add_argument("--testBatchSize", type=int, default=16)
parser.add_argument("--mag_in", type=float, default=10.0, help="l_inf magnitude of perturbation")
parser.add_argument("--foolmodel", type=str, default="vgg16")
parser.add_argument("--perturbation_type", type=str, default="imdep")
parser.add_argument("--lr", type=float, default=2e-4)
parser.add_argument("--target", type=int, default=-1)
opt = parser.parse_args()

gpulist = [0]
n_gpu = len(gpulist)
mag_in = opt.mag_in
mean_arr = [0.485, 0.456, 0.406]
stddev_arr = [0.229, 0.224, 0.225]

pretrained_clf = torchvision.models.vgg16(weights=None).cuda(gpulist[0]).eval()
for p in pretrained_clf.parameters():
    p.requires_grad_(False)
netG = ResnetGenerator().cuda(gpulist[0])
optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(0.5, 0.999))
criterion_pre = nn.CrossEntropyLoss().cuda(gpulist[0])
train_loss_history = []


def normalize_and_scale(delta_im, mode="train"):
    if opt.foolmodel == "incv3":
        delta_im = nn.ConstantPad2d((0, -1, -1, 0), 0)(delta_im)

    delta_im = delta_im + 1
    delta_im = delta_im * 0.5

    for c in range(3):
        delta_im[:, c, :, :] = (delta_im[:, c, :, :].clone() - mean_arr[c]) / stddev_arr[c]

    bs = opt.batchSize if (mode == "train") else opt.testBatchSize
    for i in range(bs):
        for ci in range(3):
            l_inf_channel = delta_im[i, ci, :, :].detach().abs().max()
            mag_in_scaled_c = mag_in / (255.0 * stddev_arr[ci])
            delta_im[i, ci, :, :] = delta_im[i, ci, :, :].clone() * np.minimum(1.0, mag_in_scaled_c / l_inf_channel.item())

    return delta_im


def train(epoch, training_data_loader, max_iter=1000):
    netG.train()
    for itr, (image, _) in enumerate(training_data_loader, 1):
        if itr > max_iter:
            break
        image = image.cuda(gpulist[0])
        with torch.no_grad():
            _, target_label = torch.min(pretrained_clf(image), 1)

        delta_im = netG(image)
        delta_im = normalize_and_scale(delta_im, "train")
        netG.zero_grad()

        recons = torch.add(image, delta_im)
        for cii in range(3):
            recons[:, cii, :, :] = recons[:, cii, :, :].clone().clamp(image[:, cii, :, :].min(), image[:, cii, :, :].max())

        output_pretrained = pretrained_clf(recons)
        loss = torch.log(criterion_pre(output_pretrained, target_label))
        loss.backward()
        optimizerG.step()
        train_loss_history.append(loss.item())
        print("===> Epoch[{}]({}/{}) loss: {:.4f}".format(epoch, itr, len(training_data_loader), loss.item()))
