#!/usr/bin/env python3
"""Train Parallel WaveGAN."""

import argparse
import logging
import os
import sys
from collections import defaultdict

import torch
from torch.utils.data import DataLoader
from tqdm import tqdm

from datasets import AudioMelDataset, Collater
from models import ParallelWaveGANDiscriminator, ParallelWaveGANGenerator, STFTLoss


class Trainer(object):
    """Customized trainer module for Parallel WaveGAN training."""

    def __init__(self, steps, epochs, data_loader, model, criterion, optimizer, scheduler, config,
                 device=torch.device("cpu")):
        """Initialize trainer.

        Args:
            data_loader (dict): Dict of data loaders. It must contain "train" and "dev" loaders.
            model (dict): Dict of models. It must contain "generator" and "discriminator" models.
        """
        self.steps = steps
        self.epochs = epochs
        self.data_loader = data_loader
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.config = config
        self.device = device
        self.finish_train = False
        self.total_train_loss = defaultdict(float)

    def run(self):
        """Run training."""
        self.tqdm = tqdm(initial=self.steps, total=self.config["train_max_steps"], desc="[train]")
        while True:
            # train one epoch
            self._train_epoch()

            # check whether training is finished
            if self.finish_train:
                break

        self.tqdm.close()
        logging.info("Finished training.")

    def save_checkpoint(self, checkpoint_path):
        state_dict = {
            "optimizer": {k: v.state_dict() for k, v in self.optimizer.items()},
            "scheduler": {k: v.state_dict() for k, v in self.scheduler.items()},
            "steps": self.steps,
            "epochs": self.epochs,
        }
        if self.config["distributed"]:
            state_dict["model"] = {k: v.module.state_dict() for k, v in self.model.items()}
        else:
            state_dict["model"] = {k: v.state_dict() for k, v in self.model.items()}
        os.makedirs(os.path.dirname(checkpoint_path), exist_ok=True)
        torch.save(state_dict, checkpoint_path)

    def _train_step(self, batch):
        """Train model one step."""
        x, y = batch
        x = tuple([x_.to(self.device) for x_ in x])
        y = y.to(self.device)

        # generator
        y_ = self.model["generator"](*x)
        sc_loss, mag_loss = self.criterion["stft"](y_, y)
        gen_loss = sc_loss + mag_loss
        if self.steps > self.config["discriminator_train_start_steps"]:
            p_ = self.model["discriminator"](y_)
            adv_loss = self.criterion["mse"](p_, p_.new_ones(p_.size()))
            gen_loss = gen_loss + self.config["lambda_adv"] * adv_loss
        self.total_train_loss["train/generator_loss"] += gen_loss.item()

        self.optimizer["generator"].zero_grad()
        gen_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model["generator"].parameters(), self.config["grad_norm"])
        self.optimizer["generator"].step()
        self.scheduler["generator"].step()

        # discriminator
        if self.steps > self.config["discriminator_train_start_steps"]:
            with torch.no_grad():
                y_ = self.model["generator"](*x)
            p = self.model["discriminator"](y)
            p_ = self.model["discriminator"](y_.detach())
            real_loss = self.criterion["mse"](p, p.new_ones(p.size()))
            fake_loss = self.criterion["mse"](p_, p_.new_zeros(p_.size()))
            dis_loss = real_loss + fake_loss
            self.total_train_loss["train/discriminator_loss"] += dis_loss.item()

            self.optimizer["discriminator"].zero_grad()
            dis_loss.backward()
            self.optimizer["discriminator"].step()
            self.scheduler["discriminator"].step()

        self.steps += 1
        self.tqdm.update(1)
        self._check_train_finish()

    def _train_epoch(self):
        """Train model one epoch."""
        for train_steps_per_epoch, batch in enumerate(self.data_loader["train"], 1):
            # train one step
            self._train_step(batch)

            # check interval
            if self.config["rank"] == 0:
                self._check_log_interval()
                self._check_save_interval()

            # check whether training is finished
            if self.finish_train:
                return

        # update
        self.epochs += 1
        self.train_steps_per_epoch = train_steps_per_epoch
        logging.info(f"(Steps: {self.steps}) Finished {self.epochs} epoch training "
                     f"({self.train_steps_per_epoch} steps per epoch).")

    def _check_save_interval(self):
        if self.steps % self.config["save_interval_steps"] == 0:
            self.save_checkpoint(os.path.join(self.config["outdir"], f"checkpoint-{self.steps}steps.pkl"))
            logging.info(f"Successfully saved checkpoint @ {self.steps} steps.")

    def _check_log_interval(self):
        if self.steps % self.config["log_interval_steps"] == 0:
            for key in self.total_train_loss.keys():
                self.total_train_loss[key] /= self.config["log_interval_steps"]
                logging.info(f"(Steps: {self.steps}) {key} = {self.total_train_loss[key]:.4f}.")
            self.total_train_loss = defaultdict(float)

    def _check_train_finish(self):
        if self.steps >= self.config["train_max_steps"]:
            self.finish_train = True


def main():
    """Run training process."""
    parser = argparse.ArgumentParser(description="Train Parallel WaveGAN.")
    parser.add_argument("--outdir", default="exp/train")
    parser.add_argument("--rank", "--local_rank", default=0, type=int,
                        help="rank for distributed training. no need to explictly specify.")
    args = parser.parse_args()

    args.distributed = False
    if not torch.cuda.is_available():
        device = torch.device("cpu")
    else:
        device = torch.device("cuda")
        torch.backends.cudnn.benchmark = True
        torch.cuda.set_device(args.rank)
        if "WORLD_SIZE" in os.environ:
            args.world_size = int(os.environ["WORLD_SIZE"])
            args.distributed = args.world_size > 1
        if args.distributed:
            torch.distributed.init_process_group(backend="nccl", init_method="env://")

    # suppress logging for distributed training
    if args.rank != 0:
        sys.stdout = open(os.devnull, "w")

    config = {
        "outdir": args.outdir, "rank": args.rank, "distributed": args.distributed,
        "batch_size": 6, "num_workers": 2, "pin_memory": True,
        "train_max_steps": 400000, "discriminator_train_start_steps": 100000,
        "lambda_adv": 4.0, "grad_norm": 10.0,
        "save_interval_steps": 5000, "log_interval_steps": 100,
    }

    dataset = {"train": AudioMelDataset(), "dev": AudioMelDataset(size=20)}
    collater = Collater()

    train_sampler, dev_sampler = None, None
    if args.distributed:
        # setup sampler for distributed training
        from torch.utils.data.distributed import DistributedSampler
        train_sampler = DistributedSampler(  # expect: TCK206
            dataset=dataset["train"],
            num_replicas=args.world_size,
            rank=args.rank,
            shuffle=True,
        )
        dev_sampler = DistributedSampler(
            dataset=dataset["dev"],
            num_replicas=args.world_size,
            rank=args.rank,
            shuffle=False,
        )
    data_loader = {
        "train": DataLoader(
            dataset=dataset["train"],
            shuffle=False if args.distributed else True,
            collate_fn=collater,
            batch_size=config["batch_size"],
            num_workers=config["num_workers"],
            sampler=train_sampler,
            pin_memory=config["pin_memory"],
        ),
        "dev": DataLoader(
            dataset=dataset["dev"],
            shuffle=False,
            collate_fn=collater,
            batch_size=config["batch_size"],
            num_workers=config["num_workers"],
            sampler=dev_sampler,
            pin_memory=config["pin_memory"],
        ),
    }

    model = {
        "generator": ParallelWaveGANGenerator().to(device),
        "discriminator": ParallelWaveGANDiscriminator().to(device),
    }
    criterion = {"stft": STFTLoss().to(device), "mse": torch.nn.MSELoss().to(device)}
    optimizer = {
        "generator": torch.optim.Adam(model["generator"].parameters(), lr=1e-4, eps=1e-6),
        "discriminator": torch.optim.Adam(model["discriminator"].parameters(), lr=5e-5, eps=1e-6),
    }
    scheduler = {
        "generator": torch.optim.lr_scheduler.StepLR(optimizer["generator"], step_size=200000, gamma=0.5),
        "discriminator": torch.optim.lr_scheduler.StepLR(optimizer["discriminator"], step_size=200000,
                                                         gamma=0.5),
    }
    if args.distributed:
        # wrap model for distributed training
        from torch.nn.parallel import DistributedDataParallel
        model["generator"] = DistributedDataParallel(model["generator"], device_ids=[args.rank])
        model["discriminator"] = DistributedDataParallel(model["discriminator"], device_ids=[args.rank])

    trainer = Trainer(
        steps=0,
        epochs=0,
        data_loader=data_loader,
        model=model,
        criterion=criterion,
        optimizer=optimizer,
        scheduler=scheduler,
        config=config,
        device=device,
    )
    trainer.run()


if __name__ == "__main__":
    main()
