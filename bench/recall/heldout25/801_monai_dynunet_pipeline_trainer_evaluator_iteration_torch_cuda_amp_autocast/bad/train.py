"""Train DynUNet on one Decathlon task; the engines come from trainer.py and evaluator.py."""
import argparse

import torch
from monai.inferers import SimpleInferer, SlidingWindowInferer
from monai.losses import DiceCELoss
from monai.networks.nets import DynUNet

from create_dataset import get_data
from evaluator import DynUNetEvaluator
from trainer import DynUNetTrainer


def main(args):
    device = torch.device("cuda")
    train_loader, val_loader, num_classes, in_channels = get_data(args.task_id, args.fold)
    net = DynUNet(3, in_channels, num_classes, kernel_size=[3, 3, 3, 3, 3], strides=[1, 2, 2, 2, 2],
                  upsample_kernel_size=[2, 2, 2, 2], deep_supervision=True, deep_supr_num=2).to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.99, weight_decay=3e-5, nesterov=True)

    evaluator = DynUNetEvaluator(device=device, val_data_loader=val_loader, network=net,
                                 inferer=SlidingWindowInferer(roi_size=args.roi, sw_batch_size=4, overlap=0.5),
                                 num_classes=num_classes, amp=args.amp, tta_val=args.tta_val)
    trainer = DynUNetTrainer(device=device, max_epochs=args.max_epochs, train_data_loader=train_loader,
                             network=net, optimizer=optimizer, loss_function=DiceCELoss(to_onehot_y=True, softmax=True),
                             inferer=SimpleInferer(), amp=args.amp)
    trainer.run()
    evaluator.run()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--task_id", default="04")
    parser.add_argument("--fold", type=int, default=0)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--max_epochs", type=int, default=1000)
    parser.add_argument("--roi", type=int, nargs=3, default=[128, 128, 128])
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--tta_val", action="store_true")
    main(parser.parse_args())
