import argparse
import os
import shutil
import time

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.utils.data as data
from torchvision import transforms
from torchvision.datasets import VOCSegmentation

from core.lr_scheduler import LRScheduler
from core.models import MixSoftmaxCrossEntropyLoss, get_segmentation_model
from core.score import SegmentationMetric


def parse_args():
    parser = argparse.ArgumentParser(description='Semantic Segmentation Training With Pytorch')
    parser.add_argument('--model', type=str, default='fcn32s')
    parser.add_argument('--aux', action='store_true', default=False)
    parser.add_argument('--aux-weight', type=float, default=0.5)
    parser.add_argument('--epochs', type=int, default=60)
    parser.add_argument('--start_epoch', type=int, default=0)
    parser.add_argument('--batch-size', type=int, default=4)
    parser.add_argument('--lr', type=float, default=1e-3)
    parser.add_argument('--momentum', type=float, default=0.9)
    parser.add_argument('--weight-decay', type=float, default=1e-4)
    parser.add_argument('--save-folder', default='~/.torch/models')
    parser.add_argument('--no-val', action='store_true', default=False)
    args = parser.parse_args()
    cudnn.benchmark = True
    args.device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    return args


def _to_target(mask):
    target = torch.as_tensor(transforms.functional.pil_to_tensor(mask), dtype=torch.long).squeeze(0)
    target[target == 255] = -1
    return target


class Trainer(object):
    def __init__(self, args):
        self.args = args
        input_transform = transforms.Compose([
            transforms.Resize((480, 480)),
            transforms.ToTensor(),
            transforms.Normalize([.485, .456, .406], [.229, .224, .225]),
        ])
        target_transform = transforms.Compose([
            transforms.Resize((480, 480), interpolation=transforms.InterpolationMode.NEAREST),
            _to_target,
        ])
        train_dataset = VOCSegmentation('./data', image_set='train', transform=input_transform,
                                        target_transform=target_transform)
        val_dataset = VOCSegmentation('./data', image_set='val', transform=input_transform,
                                      target_transform=target_transform)
        self.train_loader = data.DataLoader(dataset=train_dataset, batch_size=args.batch_size,
                                            drop_last=True, shuffle=True)
        self.val_loader = data.DataLoader(dataset=val_dataset, batch_size=1, drop_last=False, shuffle=False)

        self.model = get_segmentation_model(args.model, nclass=21, aux=args.aux,
                                            norm_layer=nn.BatchNorm2d).to(args.device)
        self.criterion = MixSoftmaxCrossEntropyLoss(args.aux, args.aux_weight, ignore_label=-1).to(args.device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr, momentum=args.momentum,
                                         weight_decay=args.weight_decay)
        self.lr_scheduler = LRScheduler(mode='poly', base_lr=args.lr, nepochs=args.epochs,
                                        iters_per_epoch=len(self.train_loader), power=0.9)
        self.metric = SegmentationMetric(21)
        self.best_pred = 0.0

    def train(self):
        cur_iters = 0
        start_time = time.time()
        for epoch in range(self.args.start_epoch, self.args.epochs):
            self.model.train()

            for i, (images, targets) in enumerate(self.train_loader):
                cur_lr = self.lr_scheduler(cur_iters)
                for param_group in self.optimizer.param_groups:
                    param_group['lr'] = cur_lr

                images = images.to(self.args.device)
                targets = targets.to(self.args.device)

                outputs = self.model(images)
                loss = self.criterion(outputs, targets)

                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

                cur_iters += 1
                if cur_iters % 10 == 0:
                    print('Epoch: [%2d/%2d] Iter [%4d/%4d] || Time: %4.4f sec || lr: %.8f || Loss: %.4f' % (
                        epoch, self.args.epochs, i + 1, len(self.train_loader),
                        time.time() - start_time, cur_lr, loss.item()))

            save_checkpoint(self.model, self.args, is_best=False)

            if not self.args.no_val:
                self.validation(epoch)

        save_checkpoint(self.model, self.args, is_best=False)

    def validation(self, epoch):
        is_best = False
        self.metric.reset()
        self.model.eval()
        with torch.no_grad():
            for i, (image, target) in enumerate(self.val_loader):
                image = image.to(self.args.device)
                outputs = self.model(image)
                pred = torch.argmax(outputs[0], 1).cpu().numpy()
                self.metric.update(pred, target.numpy())
                pix_acc, miou = self.metric.get()
                print('Epoch %d, Sample %d, validation pixAcc: %.3f, mIoU: %.3f' % (epoch, i + 1, pix_acc, miou))

        new_pred = (pix_acc + miou) / 2
        if new_pred > self.best_pred:
            is_best = True
            self.best_pred = new_pred
        save_checkpoint(self.model, self.args, is_best)


def save_checkpoint(model, args, is_best=False):
    directory = os.path.expanduser(args.save_folder)
    os.makedirs(directory, exist_ok=True)
    filename = os.path.join(directory, '{}_pascal_voc.pth'.format(args.model))
    torch.save(model.state_dict(), filename)
    if is_best:
        shutil.copyfile(filename, os.path.join(directory, '{}_pascal_voc_best_model.pth'.format(args.model)))


if __name__ == '__main__':
    args = parse_args()
    trainer = Trainer(args)
    print('Starting Epoch: %d, Total Epochs: %d' % (args.start_epoch, args.epochs))
    trainer.train()
