import argparse

import torch

from utils import eval_loop, make_model, make_optimizer, make_train_test_dataloaders, train_loop


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-items", type=int, default=20000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--mode", choices=["train", "eval", "train-eval"], default="train-eval")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = make_model(args.num_items, device)
    optimizer = make_optimizer(model)
    train_loader, test_loader = make_train_test_dataloaders(args.batch_size, args.num_items)
    if "train" in args.mode:
        train_loop(model, train_loader, optimizer, device, num_epochs=args.epochs)
    if "eval" in args.mode:
        eval_loop(model, test_loader, device)


if __name__ == "__main__":
    main()
