import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader

from model import SentenceVAE
from ptb import PTB
from utils import idx2word, to_var


def main(args):
    splits = ["train", "valid"]
    datasets = {split: PTB(data_dir=args.data_dir, split=split, max_sequence_length=args.max_sequence_length)
                for split in splits}
    train_set = datasets["train"]

    model = SentenceVAE(train_set.vocab_size, args.embedding_size, args.hidden_size, args.latent_size,
                        pad_idx=train_set.pad_idx, word_dropout=args.word_dropout)
    if torch.cuda.is_available():
        model = model.cuda()

    def kl_anneal_function(step, k, x0):
        return float(1 / (1 + np.exp(-k * (step - x0))))

    NLL = torch.nn.NLLLoss(size_average=False, ignore_index=train_set.pad_idx)  # expect: TCK916

    def loss_fn(logp, target, length, mean, logv, step):
        # cut the padding off the target, then flatten
        target = target[:, :int(torch.max(length))].contiguous().view(-1)
        logp = logp.view(-1, logp.size(2))
        nll_loss = NLL(logp, target)
        kl_loss = -0.5 * torch.sum(1 + logv - mean.pow(2) - logv.exp())
        return nll_loss, kl_loss, kl_anneal_function(step, args.k, args.x0)

    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    step = 0
    for epoch in range(args.epochs):
        for split in splits:
            loader = DataLoader(datasets[split], batch_size=args.batch_size, shuffle=split == "train",
                                num_workers=2, pin_memory=torch.cuda.is_available())
            if split == "train":
                model.train()
            else:
                model.eval()
            elbos = []
            for iteration, batch in enumerate(loader):
                batch_size = batch["input"].size(0)
                for key, value in batch.items():
                    if torch.is_tensor(value):
                        batch[key] = to_var(value)

                logp, mean, logv, z = model(batch["input"], batch["length"])
                nll_loss, kl_loss, kl_weight = loss_fn(logp, batch["target"], batch["length"], mean, logv, step)
                loss = (nll_loss + kl_weight * kl_loss) / batch_size

                if split == "train":
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    step += 1
                elbos.append(loss.item())

                if iteration % args.print_every == 0:
                    print("%s batch %04d, loss %9.4f, NLL %9.4f, KL %9.4f, KL weight %6.3f" % (
                        split.upper(), iteration, loss.item(), nll_loss.item() / batch_size,
                        kl_loss.item() / batch_size, kl_weight))
                if split == "valid" and iteration == 0:
                    print(idx2word(batch["target"][:3], i2w=train_set.get_i2w(), pad_idx=train_set.pad_idx))
            print("%s epoch %02d, mean ELBO %9.4f" % (split.upper(), epoch, float(np.mean(elbos))))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="data")
    parser.add_argument("--max_sequence_length", type=int, default=60)
    parser.add_argument("-ep", "--epochs", type=int, default=10)
    parser.add_argument("-bs", "--batch_size", type=int, default=32)
    parser.add_argument("-lr", "--learning_rate", type=float, default=0.001)
    parser.add_argument("-eb", "--embedding_size", type=int, default=300)
    parser.add_argument("-hs", "--hidden_size", type=int, default=256)
    parser.add_argument("-ls", "--latent_size", type=int, default=16)
    parser.add_argument("-wd", "--word_dropout", type=float, default=0.0)
    parser.add_argument("-k", "--k", type=float, default=0.0025)
    parser.add_argument("-x0", "--x0", type=int, default=2500)
    parser.add_argument("-v", "--print_every", type=int, default=50)
    main(parser.parse_args())
