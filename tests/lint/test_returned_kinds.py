"""A value keeps its kind when a function or a method returns it: of this file or of another
file of the project, whole or as one element of a returned tuple, called directly or on an
object whose class the code shows (``self.sampler.sample(n)``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchcheck.lint.api import LintOptions, lint

RESAMPLE = """
import numpy as np
import torch


class Resampler:
    def sample(self, batch_size):
        drawn = np.random.choice(10, size=(batch_size,))
        indices = torch.from_numpy(drawn).long()
        weights = torch.from_numpy(drawn).float()
        return indices, weights

    def describe(self):
        return "uniform", 10


def make_noise(shape):
    return torch.randn(shape)
"""

TRAIN = """
from resample import Resampler, make_noise


class TrainLoop:
    def __init__(self, steps):
        self.sampler = Resampler()

    def run_step(self, batch):
        t, weights = self.sampler.sample(batch.shape[0])
        t.to(batch.device)
        name, count = self.sampler.describe()
        name.to(batch.device)
        noise = make_noise(batch.shape)
        noise.to(batch.device)
"""


def _findings(root: Path, code: str = "TCK202") -> list[tuple[str, int]]:
    # the default rules: a file that no selected rule may fire in is not read for its exports
    result = lint(LintOptions(paths=(root,), use_cache=False))
    return sorted((Path(d.filename).name, d.location.row) for d in result.diagnostics if d.code == code)


def _write(root: Path, **files: str) -> Path:
    for name, text in files.items():
        (root / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_tensors_returned_by_another_files_method_and_function_are_tensors(tmp_path: Path) -> None:
    # `name` is a string the method returns: `.to()` of it is no tensor transfer
    assert _findings(_write(tmp_path, resample=RESAMPLE, train=TRAIN)) == [("train.py", 11), ("train.py", 15)]


def test_without_the_other_file_nothing_is_known(tmp_path: Path) -> None:
    assert _findings(_write(tmp_path, train=TRAIN)) == []


def test_a_tuple_returned_by_a_method_of_this_file_types_each_name(tmp_path: Path) -> None:
    single = RESAMPLE + TRAIN.replace("from resample import Resampler, make_noise\n", "")
    assert _findings(_write(tmp_path, single=single)) == [("single.py", 28), ("single.py", 32)]


def test_returns_that_disagree_type_nothing(tmp_path: Path) -> None:
    code = """
    import torch

    def draw(n, numpy):
        if numpy:
            return [0] * n, 1.0
        return torch.zeros(n), 1.0

    def step(device, as_numpy):
        values, scale = draw(4, as_numpy)
        values.to(device)
    """
    assert _findings(_write(tmp_path, step=code)) == []
    # a literal flag decides which `return` runs: there the returns agree
    decided = code.replace("draw(4, as_numpy)", "draw(4, False)")
    assert _findings(_write(tmp_path, step=decided)) == [("step.py", 11)]


def test_a_loop_that_trains_through_a_closure_keeps_no_loss(tmp_path: Path) -> None:
    code = """
    import torch

    def fit(net, inputs, steps):
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        history = []

        def closure():
            optimizer.zero_grad()
            loss = net(inputs).mean()
            loss.backward()
            return loss

        for _ in range(steps):
            loss = closure()
            optimizer.step()
            history.append(loss)
        return history
    """
    assert _findings(_write(tmp_path, fit=code), "TCK101") == [("fit.py", 17)]


def test_a_tensor_copied_from_what_another_files_function_returns(tmp_path: Path) -> None:
    train = """
    import torch
    from resample import make_noise

    def step(shape):
        noise = make_noise(shape)
        return torch.tensor(noise)
    """
    assert _findings(_write(tmp_path, resample=RESAMPLE, train=train), "TCK704") == [("train.py", 7)]


def test_a_module_that_a_builder_of_another_file_returns_is_a_module(tmp_path: Path) -> None:
    models = """
    import torch.nn as nn

    class Net(nn.Module):
        def forward(self, x):
            return x

    def build_model(cfg):
        return Net()

    def build_name(cfg):
        return "net"
    """
    train = """
    from models import build_model, build_name

    def run(cfg, x):
        m = build_model(cfg)
        n = build_name(cfg)
        return m.forward(x), n.forward(x)
    """
    assert _findings(_write(tmp_path, models=models, train=train), "TCK105") == [("train.py", 7)]


def test_losses_a_trainer_of_another_file_backpropagated_and_returned_are_kept_with_their_graph(tmp_path: Path) -> None:
    trainer = """
    import torch.nn as nn

    class Trainer(nn.Module):
        def __init__(self, net, optimizer):
            super().__init__()
            self.net, self.optimizer = net, optimizer

        def train_step(self, x):
            self.optimizer.zero_grad()
            losses = [self.net(x).mean(), self.net(x).abs().mean()]
            losses = losses + [sum(losses)]
            losses[-1].backward()
            self.optimizer.step()
            return losses
    """
    train = """
    from trainer import Trainer

    def fit_one_epoch(trainer, batches):
        total = 0
        for x in batches:
            losses = trainer.train_step(x)
            first, second, whole = losses
            total += whole
        return total

    def main(net, optimizer, batches):
        fit_one_epoch(Trainer(net, optimizer), batches)
    """
    assert _findings(_write(tmp_path, trainer=trainer, train=train), "TCK101") == [("train.py", 9)]


ALGORITHM = """
import torch

class Ranker:
    def __init__(self, net, optimizer):
        self.net, self.optimizer = net, optimizer

    def _update(self):
        self.optimizer.zero_grad()
        self.loss.backward()
        self.optimizer.step()

    def train(self, batch):
        self.loss = self.net(batch).mean()
        self._update()
        return self.loss{item}, {{"step": 1}}
"""

RUN = """
from algorithm import Ranker

def run(net, optimizer, batches, steps):
    ranker = Ranker(net, optimizer)
    loss, history, step = 0.0, [], 0
    while step < steps:
        step_loss, summary = ranker.train(batches[step])
        loss += step_loss / steps
        step += 1
        if step % 10 == 0:
            history.append(loss)
    return history
"""


def test_what_another_files_method_backpropagated_and_returned_keeps_its_graph_in_any_loop(tmp_path: Path) -> None:
    """The value a method backpropagated (through a helper of its own class) and returned is
    attached to a graph nobody will backpropagate again: summed across iterations of a loop
    that is no data loop, and the sum kept, both keep every step's graph."""
    root = _write(tmp_path, algorithm=ALGORITHM.format(item=""), run=RUN)
    assert _findings(root, "TCK101") == [("run.py", 9), ("run.py", 12)]


def test_a_number_returned_instead_keeps_nothing(tmp_path: Path) -> None:
    root = _write(tmp_path, algorithm=ALGORITHM.format(item=".item()"), run=RUN)
    assert _findings(root, "TCK101") == []
