import contextlib
import os
import random

import numpy as np
import torch


@contextlib.contextmanager
def safe_globals():
    if hasattr(torch.serialization, "safe_globals"):
        with torch.serialization.safe_globals([np.core.multiarray._reconstruct, np.ndarray, np.dtype]):
            yield
    else:
        yield


class Trainer:
    def __init__(self, model, optimizer, train_loader, output_dir="out"):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.output_dir = output_dir
        self.global_step = 0

    def _save_checkpoint(self):
        ckpt_dir = os.path.join(self.output_dir, f"checkpoint-{self.global_step}")
        os.makedirs(ckpt_dir, exist_ok=True)
        torch.save(self.model.state_dict(), os.path.join(ckpt_dir, "model.pt"))
        torch.save(self.optimizer.state_dict(), os.path.join(ckpt_dir, "optimizer.pt"))
        rng_states = {
            "python": random.getstate(),
            "numpy": np.random.get_state(),
            "cpu": torch.random.get_rng_state(),
        }
        if torch.cuda.is_available():
            rng_states["cuda"] = torch.cuda.random.get_rng_state_all()
        torch.save(rng_states, os.path.join(ckpt_dir, "rng_state.pth"))

    def _load_rng_state(self, checkpoint):
        rng_file = os.path.join(checkpoint, "rng_state.pth")
        if not os.path.isfile(rng_file):
            return
        with safe_globals():
            checkpoint_rng_state = torch.load(rng_file)  # expect: TCK401
        random.setstate(checkpoint_rng_state["python"])
        np.random.set_state(checkpoint_rng_state["numpy"])
        torch.random.set_rng_state(checkpoint_rng_state["cpu"])
        if torch.cuda.is_available() and "cuda" in checkpoint_rng_state:
            torch.cuda.random.set_rng_state_all(checkpoint_rng_state["cuda"])

    def train(self, num_epochs, resume_from_checkpoint=None):
        if resume_from_checkpoint is not None:
            self.model.load_state_dict(
                torch.load(os.path.join(resume_from_checkpoint, "model.pt"), map_location="cpu", weights_only=True)
            )
            self.optimizer.load_state_dict(
                torch.load(os.path.join(resume_from_checkpoint, "optimizer.pt"), map_location="cpu", weights_only=True)
            )
            self._load_rng_state(resume_from_checkpoint)
        self.model.train()
        for epoch in range(num_epochs):
            for inputs, labels in self.train_loader:
                loss = torch.nn.functional.cross_entropy(self.model(inputs), labels)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.global_step += 1
                if self.global_step % 500 == 0:
                    self._save_checkpoint()
