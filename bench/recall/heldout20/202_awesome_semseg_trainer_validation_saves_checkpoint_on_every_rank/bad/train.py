import argparse
import datetime
import logging
import os
import shutil
import time

import torch
import torch.nn as nn
import torch.utils.data as data

from distributed import get_rank, make_batch_data_sampler, make_data_sampler, reduce_loss_dict, synchronize
from segmentation import FCNHead, MixSoftmaxCrossEntropyLoss, RandomSegmentationDataset, SegmentationMetric

logger = logging.getLogger("semantic_segmentation")


def parse_args():
    parser = argparse.ArgumentParser(description="Semantic Segmentation Training With Pytorch")
    parser.add_argument("--model", default="fcn")
    parser.add_argument("--backbone", default="resnet50")
    parser.add_argument("--dataset", default="pascal_voc")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--save-dir", default="~/.torch/models")
    parser.add_argument("--save-epoch", type=int, default=10)
    parser.add_argument("--log-iter", type=int, default=10)
    parser.add_argument("--val-epoch", type=int, default=1)
    parser.add_argument("--skip-val", action="store_true", default=False)
    return parser.parse_args()


class Trainer(object):
    def __init__(self, args):
        self.args = args
        self.device = torch.device(args.device)

        train_dataset = RandomSegmentationDataset()
        val_dataset = RandomSegmentationDataset(size=64)
        args.iters_per_epoch = len(train_dataset) // (args.num_gpus * args.batch_size)
        args.max_iters = args.epochs * args.iters_per_epoch

        train_sampler = make_data_sampler(train_dataset, shuffle=True, distributed=args.distributed)
        train_batch_sampler = make_batch_data_sampler(train_sampler, args.batch_size, args.max_iters)
        val_sampler = make_data_sampler(val_dataset, False, args.distributed)
        val_batch_sampler = make_batch_data_sampler(val_sampler, args.batch_size)

        self.train_loader = data.DataLoader(dataset=train_dataset, batch_sampler=train_batch_sampler,
                                            pin_memory=True)
        self.val_loader = data.DataLoader(dataset=val_dataset, batch_sampler=val_batch_sampler,
                                          pin_memory=True)

        BatchNorm2d = nn.SyncBatchNorm if args.distributed else nn.BatchNorm2d
        self.model = FCNHead(train_dataset.num_class, norm_layer=BatchNorm2d).to(self.device)
        self.criterion = MixSoftmaxCrossEntropyLoss(ignore_index=-1).to(self.device)

        params_list = [{"params": self.model.pretrained.parameters(), "lr": args.lr}]
        for module in self.model.exclusive:
            params_list.append({"params": getattr(self.model, module).parameters(), "lr": args.lr * 10})
        self.optimizer = torch.optim.SGD(params_list, lr=args.lr, momentum=0.9, weight_decay=1e-4)
        self.lr_scheduler = torch.optim.lr_scheduler.PolynomialLR(self.optimizer, total_iters=args.max_iters,
                                                                  power=0.9)

        if args.distributed:
            self.model = nn.parallel.DistributedDataParallel(self.model, device_ids=[args.local_rank],
                                                             output_device=args.local_rank)

        self.metric = SegmentationMetric(train_dataset.num_class)
        self.best_pred = 0.0

    def train(self):
        save_to_disk = get_rank() == 0
        max_iters = self.args.max_iters
        log_per_iters = self.args.log_iter
        val_per_iters = self.args.val_epoch * self.args.iters_per_epoch
        save_per_iters = self.args.save_epoch * self.args.iters_per_epoch
        start_time = time.time()

        self.model.train()
        for iteration, (images, targets, _) in enumerate(self.train_loader):
            iteration = iteration + 1

            images = images.to(self.device)
            targets = targets.to(self.device)

            outputs = self.model(images)
            loss_dict = self.criterion(outputs, targets)
            losses = sum(loss for loss in loss_dict.values())

            loss_dict_reduced = reduce_loss_dict(loss_dict)
            losses_reduced = sum(loss for loss in loss_dict_reduced.values())

            self.optimizer.zero_grad()
            losses.backward()
            self.optimizer.step()
            self.lr_scheduler.step()

            if iteration % log_per_iters == 0 and save_to_disk:
                eta = (time.time() - start_time) / iteration * (max_iters - iteration)
                logger.info("Iters: %d/%d || Loss: %.4f || Estimated Time: %s", iteration, max_iters,
                            losses_reduced.item(), datetime.timedelta(seconds=int(eta)))

            if iteration % save_per_iters == 0 and save_to_disk:
                save_checkpoint(self.model, self.args, is_best=False)

            if not self.args.skip_val and iteration % val_per_iters == 0:
                self.validation()
                self.model.train()

        save_checkpoint(self.model, self.args, is_best=False)

    def validation(self):
        is_best = False
        self.metric.reset()
        model = self.model.module if self.args.distributed else self.model
        model.eval()
        for i, (image, target, filename) in enumerate(self.val_loader):
            image = image.to(self.device)
            target = target.to(self.device)
            with torch.no_grad():
                outputs = model(image)
            self.metric.update(outputs[0].cpu(), target.cpu())
        pix_acc, miou = self.metric.get()
        logger.info("Validation pixAcc: %.3f, mIoU: %.3f", pix_acc, miou)

        new_pred = (pix_acc + miou) / 2
        if new_pred > self.best_pred:
            is_best = True
            self.best_pred = new_pred
        save_checkpoint(self.model, self.args, is_best)
        synchronize()


def save_checkpoint(model, args, is_best=False):
    """Save Checkpoint"""
    directory = os.path.expanduser(args.save_dir)
    if not os.path.exists(directory):
        os.makedirs(directory)
    filename = os.path.join(directory, "{}_{}_{}.pth".format(args.model, args.backbone, args.dataset))
    if args.distributed:
        model = model.module
    torch.save(model.state_dict(), filename)  # expect: TCK208
    if is_best:
        best_filename = "{}_{}_{}_best_model.pth".format(args.model, args.backbone, args.dataset)
        shutil.copyfile(filename, os.path.join(directory, best_filename))


if __name__ == "__main__":
    args = parse_args()

    num_gpus = int(os.environ["WORLD_SIZE"]) if "WORLD_SIZE" in os.environ else 1
    args.num_gpus = num_gpus
    args.distributed = num_gpus > 1
    if torch.cuda.is_available():
        torch.backends.cudnn.benchmark = True
        args.device = "cuda"
    else:
        args.distributed = False
        args.device = "cpu"
    if args.distributed:
        torch.cuda.set_device(args.local_rank)
        torch.distributed.init_process_group(backend="nccl", init_method="env://")
        synchronize()
    args.lr = args.lr * num_gpus

    logging.basicConfig(level=logging.INFO if get_rank() == 0 else logging.WARNING)
    trainer = Trainer(args)
    trainer.train()
