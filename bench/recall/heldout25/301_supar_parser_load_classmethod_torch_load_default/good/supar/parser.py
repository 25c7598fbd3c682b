"""Base class of all parsers: training loop, checkpointing, and loading released models."""
from __future__ import annotations

import os

import dill
import torch
from torch.optim import Adam
from torch.optim.lr_scheduler import ExponentialLR

import supar
from supar.utils import Config, download, get_rng_state, set_rng_state


class Parser(object):
    NAME = None
    MODEL = None

    def __init__(self, args, model, transform):
        self.args = args
        self.model = model
        self.transform = transform
        self.checkpoint_state_dict = None

    @property
    def device(self):
        return "cuda" if torch.cuda.is_available() else "cpu"

    def init_optimizer(self):
        return Adam(self.model.parameters(), lr=self.args.lr, betas=(self.args.mu, self.args.nu))

    def init_scheduler(self):
        return ExponentialLR(self.optimizer, gamma=self.args.decay ** (1 / self.args.decay_steps))

    def train(self, train, dev, test, epochs=5000, patience=100, **kwargs):
        self.optimizer = self.init_optimizer()
        self.scheduler = self.init_scheduler()
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.args.amp)
        start = 1
        if self.checkpoint_state_dict is not None:
            self.optimizer.load_state_dict(self.checkpoint_state_dict["optimizer_state_dict"])
            self.scheduler.load_state_dict(self.checkpoint_state_dict["scheduler_state_dict"])
            self.scaler.load_state_dict(self.checkpoint_state_dict["scaler_state_dict"])
            set_rng_state(self.checkpoint_state_dict["rng_state"])
            start = self.checkpoint_state_dict["epoch"] + 1
        for epoch in range(start, epochs + 1):
            self.model.train()
            for batch in train.loader:
                with torch.autocast(self.device, enabled=self.args.amp):
                    loss = self.train_step(batch)
                self.scaler.scale(loss).backward()
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.scheduler.step()
                self.optimizer.zero_grad(True)
            self.epoch = epoch
            self.save_checkpoint(self.args.path + ".checkpoint")
        self.save(self.args.path)

    def train_step(self, batch):
        raise NotImplementedError

    @classmethod
    def load(cls, path: str, reload: bool = False, src: str = "github", checkpoint: bool = False, **kwargs) -> Parser:
        """Load a released model by shortcut name (downloaded and cached) or a local model file."""
        args = Config(**locals())
        if not os.path.exists(path):
            path = download(supar.MODEL[src].get(path, path), reload=reload)
        # the file pickles the transform (vocabularies, tokenizers) with dill: only load trusted files
        state = torch.load(path, map_location="cpu", weights_only=False)
        cls = supar.PARSER[state["name"]] if cls.NAME is None else cls
        args = state["args"].update(args)
        model = cls.MODEL(**args)
        model.load_pretrained(state["pretrained"])
        model.load_state_dict(state["state_dict"], False)
        parser = cls(args, model, state["transform"])
        parser.checkpoint_state_dict = state.get("checkpoint_state_dict") if checkpoint else None
        parser.model.to(parser.device)
        return parser

    def save(self, path: str) -> None:
        model = self.model.module if hasattr(self.model, "module") else self.model
        state_dict = {k: v.cpu() for k, v in model.state_dict().items()}
        pretrained = state_dict.pop("pretrained.weight", None)
        # the transform holds the vocabularies and tokenizers, pickled with dill
        state = {"name": self.NAME, "args": model.args, "state_dict": state_dict,
                 "pretrained": pretrained, "transform": self.transform}
        torch.save(state, path, pickle_module=dill)

    def save_checkpoint(self, path: str) -> None:
        model = self.model.module if hasattr(self.model, "module") else self.model
        checkpoint_state_dict = {"epoch": self.epoch,
                                 "optimizer_state_dict": self.optimizer.state_dict(),
                                 "scheduler_state_dict": self.scheduler.state_dict(),
                                 "scaler_state_dict": self.scaler.state_dict(),
                                 "rng_state": get_rng_state()}
        state_dict = {k: v.cpu() for k, v in model.state_dict().items()}
        pretrained = state_dict.pop("pretrained.weight", None)
        state = {"name": self.NAME, "args": model.args, "state_dict": state_dict, "pretrained": pretrained,
                 "checkpoint_state_dict": checkpoint_state_dict, "transform": self.transform}
        torch.save(state, path, pickle_module=dill)
