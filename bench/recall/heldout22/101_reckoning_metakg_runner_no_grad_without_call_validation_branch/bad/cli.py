import argparse

import pytorch_lightning as pl
from torch.utils.data import DataLoader

from runner import MetaKnowledgeRunner


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", default="t5-small")
    parser.add_argument("--inner_lr", type=float, default=5e-5)
    parser.add_argument("--n_inner_iter", type=int, default=4)
    parser.add_argument("--learning_rate", type=float, default=3e-5)
    parser.add_argument("--adam_epsilon", type=float, default=1e-8)
    parser.add_argument("--weight_decay", type=float, default=0.01)
    parser.add_argument("--warmup_steps", type=int, default=100)
    parser.add_argument("--total_steps", type=int, default=10000)
    parser.add_argument("--max_epochs", type=int, default=5)
    args = parser.parse_args()

    runner = MetaKnowledgeRunner(vars(args))
    train_loader = DataLoader([], batch_size=1)
    dev_loader = DataLoader([], batch_size=1)
    trainer = pl.Trainer(max_epochs=args.max_epochs)
    trainer.fit(runner, train_loader, dev_loader)


if __name__ == "__main__":
    main()
