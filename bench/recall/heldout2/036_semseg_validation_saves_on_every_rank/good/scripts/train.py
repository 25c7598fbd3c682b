import os

import torch
import torch.nn as nn

from core.models.model_zoo import get_segmentation_model
from core.utils.distributed import get_rank, make_data_sampler


class Trainer(object):
    def __init__(self, args):
        self.args = args
        self.model = get_segmentation_model(model=args.model, backbone=args.backbone).to(args.device)
        if args.distributed:
            self.model = nn.parallel.DistributedDataParallel(self.model, device_ids=[args.local_rank], output_device=args.local_rank)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr, momentum=args.momentum)
        self.best_pred = 0.0

    def train(self, train_loader, criterion):
        save_to_disk = get_rank() == 0
        self.model.train()
        for iteration, (images, targets, _) in enumerate(train_loader):
            loss = criterion(self.model(images.to(self.args.device)), targets.to(self.args.device))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if iteration % self.args.save_per_iters == 0 and save_to_disk:
                save_checkpoint(self.model, self.args, is_best=False)
            if iteration % self.args.val_per_iters == 0:
                self.validation()
                self.model.train()

    def validation(self):
        is_best = False
        self.model.eval()
        new_pred = self.evaluate()
        if new_pred > self.best_pred:
            is_best = True
            self.best_pred = new_pred
        if get_rank() == 0:
            save_checkpoint(self.model, self.args, is_best)

    def evaluate(self):
        return 0.0


def save_checkpoint(model, args, is_best=False):
    directory = os.path.expanduser(args.save_dir)
    if not os.path.exists(directory):
        os.makedirs(directory)
    filename = os.path.join(directory, "{}_{}_{}.pth".format(args.model, args.backbone, args.dataset))
    if args.distributed:
        model = model.module
    torch.save(model.state_dict(), filename)


if __name__ == "__main__":
    from core.utils.options import parse_args

    args = parse_args()
    num_gpus = int(os.environ["WORLD_SIZE"]) if "WORLD_SIZE" in os.environ else 1
    args.distributed = num_gpus > 1
    if args.distributed:
        torch.cuda.set_device(args.local_rank)
        torch.distributed.init_process_group(backend="nccl", init_method="env://")
    trainer = Trainer(args)
