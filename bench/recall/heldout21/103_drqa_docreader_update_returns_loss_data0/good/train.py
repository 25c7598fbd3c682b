import argparse
import logging

import torch
from torch.utils.data import DataLoader, TensorDataset

import utils
from model import DocReader

logger = logging.getLogger()


def train(args, data_loader, model, global_stats):
    """Run through one epoch of model training with the provided data loader."""
    train_loss = utils.AverageMeter()
    epoch_time = utils.Timer()

    for idx, ex in enumerate(data_loader):
        train_loss.update(*model.update(ex))

        if idx % args.display_iter == 0:
            logger.info("train: Epoch = %d | iter = %d/%d | loss = %.2f | elapsed time = %.2f (s)"
                        % (global_stats["epoch"], idx, len(data_loader), train_loss.avg,
                           global_stats["timer"].time()))
            train_loss.reset()

    logger.info("train: Epoch %d done. Time for epoch = %.2f (s)" % (global_stats["epoch"], epoch_time.time()))


def toy_loader(args, n=512, doc_len=120, q_len=16):
    x1 = torch.randint(1, args.vocab_size, (n, doc_len))
    x1_f = torch.rand(n, doc_len, args.num_features)
    x1_mask = torch.zeros(n, doc_len, dtype=torch.bool)
    x2 = torch.randint(1, args.vocab_size, (n, q_len))
    x2_mask = torch.zeros(n, q_len, dtype=torch.bool)
    start = torch.randint(0, doc_len - 10, (n,))
    end = start + torch.randint(0, 10, (n,))
    return DataLoader(TensorDataset(x1, x1_f, x1_mask, x2, x2_mask, start, end),
                      batch_size=args.batch_size, shuffle=True)


def main(args):
    model = DocReader(args)
    model.init_optimizer()
    if torch.cuda.is_available():
        model.cuda()
    loader = toy_loader(args)
    stats = {"timer": utils.Timer(), "epoch": 0}
    for epoch in range(args.num_epochs):
        stats["epoch"] = epoch
        train(args, loader, model, stats)


if __name__ == "__main__":
    parser = argparse.ArgumentParser("DrQA Document Reader")
    parser.add_argument("--num-epochs", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--display-iter", type=int, default=25)
    parser.add_argument("--optimizer", default="adamax")
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0)
    parser.add_argument("--weight-decay", type=float, default=0)
    parser.add_argument("--grad-clipping", type=float, default=10)
    parser.add_argument("--vocab-size", type=int, default=5000)
    parser.add_argument("--embedding-dim", type=int, default=300)
    parser.add_argument("--num-features", type=int, default=4)
    parser.add_argument("--hidden-size", type=int, default=128)
    parser.add_argument("--doc-layers", type=int, default=3)
    parser.add_argument("--question-layers", type=int, default=3)
    parser.add_argument("--dropout-rnn", type=float, default=0.4)
    logging.basicConfig(level=logging.INFO)
    main(parser.parse_args())
