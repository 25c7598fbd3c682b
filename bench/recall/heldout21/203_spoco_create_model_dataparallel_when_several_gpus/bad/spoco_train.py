import argparse
import random

import torch
from torch.utils.data import DataLoader

from datasets import CVPPPDataset, contrastive_loss
from model import create_model, get_number_of_learnable_parameters
from trainer import SpocoTrainer

parser = argparse.ArgumentParser(description="SPOCO train")
parser.add_argument("--manual-seed", type=int, default=None)
parser.add_argument("--ds-path", type=str, required=True)
parser.add_argument("--batch-size", type=int, default=4)
parser.add_argument("--num-workers", type=int, default=8)
parser.add_argument("--model-in-channels", type=int, default=3)
parser.add_argument("--model-out-channels", type=int, default=16)
parser.add_argument("--model-feature-maps", type=int, nargs="+", default=[32, 64, 128])
parser.add_argument("--momentum", type=float, default=0.999)
parser.add_argument("--learning-rate", type=float, default=0.0002)
parser.add_argument("--weight-decay", type=float, default=0.00001)
parser.add_argument("--checkpoint-dir", type=str, required=True)
parser.add_argument("--log-after-iters", type=int, default=250)
parser.add_argument("--validate-after-iters", type=int, default=1000)
parser.add_argument("--max-num-iterations", type=int, default=80000)


def main():
    args = parser.parse_args()
    if args.manual_seed is not None:
        random.seed(args.manual_seed)
        torch.manual_seed(args.manual_seed)

    train_loader = DataLoader(CVPPPDataset(args.ds_path, "train"), batch_size=args.batch_size,
                              shuffle=True, num_workers=args.num_workers)
    val_loader = DataLoader(CVPPPDataset(args.ds_path, "val"), batch_size=args.batch_size,
                            shuffle=False, num_workers=args.num_workers)

    model = create_model(args)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    print(f"Number of learnable params {get_number_of_learnable_parameters(model)}")

    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    lr_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.2, patience=10)

    trainer = SpocoTrainer(model, optimizer, lr_scheduler, contrastive_loss, device, train_loader, val_loader,
                           args.checkpoint_dir, args.max_num_iterations, args.validate_after_iters,
                           args.log_after_iters)
    trainer.fit()


if __name__ == "__main__":
    main()
