from argparse import Namespace
import logging
import random
from typing import Callable, List, Tuple

import torch
import torch.nn as nn
from tensorboardX import SummaryWriter
from torch.nn.utils.clip_grad import clip_grad_norm_
from torch.optim import Optimizer
from tqdm import trange

from nn_utils import NoamLR
from utils import compute_gnorm, compute_pnorm


def train(model: nn.Module,
          data: List[Tuple[str, List[float]]],
          loss_func: Callable,
          optimizer: Optimizer,
          scheduler: NoamLR,
          args: Namespace,
          n_iter: int = 0,
          logger: logging.Logger = None,
          writer: SummaryWriter = None,
          test_smiles: List[str] = None) -> int:
    """Train for one epoch; with `args.moe` the data is a list of per-source datasets."""
    model.train()
    random.shuffle(data)
    loss_sum, iter_count = 0, 0

    if args.moe:
        test_smiles = list(test_smiles)
        random.shuffle(test_smiles)
        train_smiles = []
        for d in data:
            random.shuffle(d)
            smiles, _ = zip(*d)
            train_smiles.append(smiles)
        model.compute_domain_encs(train_smiles)
        num_iters = min(len(test_smiles), min(len(d) for d in data))
    else:
        num_iters = len(data)

    for i in trange(0, num_iters, args.batch_size):
        if args.moe:
            batch = [d[i:i + args.batch_size] for d in data]
            train_batch, train_labels = [], []
            for b in batch:
                tb, tl = zip(*b)
                train_batch.append(tb)
                train_labels.append(tl)
            test_batch = test_smiles[i:i + args.batch_size]
            loss = model.compute_loss(train_batch, train_labels, test_batch)
            if logger is not None:
                loss_sum += loss.item()
                iter_count += len(batch)
        else:
            batch = data[i:i + args.batch_size]
            smiles_batch, label_batch = zip(*batch)
            mask = torch.Tensor([[x is not None for x in lb] for lb in label_batch])
            labels = torch.Tensor([[0 if x is None else x for x in lb] for lb in label_batch])
            if next(model.parameters()).is_cuda:
                mask, labels = mask.cuda(), labels.cuda()

            model.zero_grad()
            preds = model(smiles_batch)
            loss = loss_func(preds, labels) * mask
            loss = loss.sum() / mask.sum()
            if logger is not None:
                loss_sum += loss.item()
                iter_count += len(batch)

        loss.backward()
        if args.max_grad_norm is not None:
            clip_grad_norm_(model.parameters(), args.max_grad_norm)
        optimizer.step()  # expect: TCK102
        scheduler.step()

        n_iter += len(batch)
        if (n_iter // args.batch_size) % args.log_frequency == 0 and (logger is not None or writer is not None):
            lr = scheduler.get_lr()[0]
            pnorm = compute_pnorm(model)
            gnorm = compute_gnorm(model)
            loss_avg = loss_sum / iter_count
            loss_sum, iter_count = 0, 0
            if logger is not None:
                logger.debug("Loss = {:.4e}, PNorm = {:.4f}, GNorm = {:.4f}, lr = {:.4e}".format(loss_avg, pnorm, gnorm, lr))
            if writer is not None:
                writer.add_scalar("train_loss", loss_avg, n_iter)
                writer.add_scalar("param_norm", pnorm, n_iter)
                writer.add_scalar("gradient_norm", gnorm, n_iter)
                writer.add_scalar("learning_rate", lr, n_iter)

    return n_iter
