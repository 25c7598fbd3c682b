from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from torchcheck.lint import references, torch_api
from torchcheck.lint.accumulators import SELF_ACCUMULATION_TEXT, accumulated_arguments, accumulation_target, held_by_caller, kept_for_a_later_backward, another_named_entry, accumulation_start_loop, instance_class_of, lives_one_step, may_carry_graph, self_accumulation
from torchcheck.lint.containers import combined_names, literal_items, unpacked_parts
from torchcheck.lint.context import LintContext, Loop
from torchcheck.lint.flow import Function
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import TENSOR_KINDS, Kind
from torchcheck.lint.project import BACKPROPAGATED, GRAPH, GRAPH_ENTRIES, Condition
from torchcheck.lint.nodes import dotted_name, is_detached, root_name, root_name_node, self_attribute, source_text, subtree
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_CONTAINER_METHODS = frozenset({"append", "extend", "insert"})
_KEPT_BY_CALLER = "Graph-attached tensor added into `{held}`, which outlives the call: every call keeps its graph; store `.item()` or `.detach()`"


@dataclass(frozen=True)
class _Candidate:
    node: cst.CSTNode  # the append call or the augmented assignment
    value: cst.BaseExpression  # what is stored
    container: str
    loops: tuple[Loop, ...]
    graph_attached: bool  # known to carry a graph when stored
    created_in: Loop | None  # the innermost enclosing loop that binds the container afresh
    evaluating: bool  # `+=` in a function that put a module in eval mode
    accumulated_in: cst.CSTNode | None = None  # for a project method's call: where it accumulates
    returned: Condition | None = None  # returned with its graph by a function of another project file


@dataclass
class _LoopFacts:
    """What one outermost loop (with the loops nested in it) keeps and backpropagates."""

    candidates: list[_Candidate] = field(default_factory=list)
    # per loop: names `.backward()` is called on there, and the names they were combined from
    backpropagated: dict[Loop, set[str]] = field(default_factory=dict)
    # the same, only for the loop whose own body makes the call (not an inner loop's)
    backpropagated_directly: dict[Loop, set[str]] = field(default_factory=dict)
    # `loss += part`: the accumulators each name was added into
    summed_into: dict[str, set[str]] = field(default_factory=dict)
    # accumulators (`total += step_loss / n`) of what a function of another file returned with its graph
    returned_into: dict[str, Condition] = field(default_factory=dict)
    # per loop: containers one of whose entries `.backward()` is called on there (`losses[-1]`)
    entries_backpropagated: dict[Loop, set[str]] = field(default_factory=dict)


class LossKeptWithGraph(Rule):
    """
    ## What it does
    Checks for graph-attached tensors (a loss, a model output, anything `.backward()` is
    called on) stored across iterations of a training or evaluation loop: appended to a
    list, or accumulated with `+=` into a variable created before the loop (also spelled
    `total = total + loss`, in place as `total.add_(loss)`, or a moving average `ema = a * loss + (1 - a) * ema`).
    A function that runs one step outside any loop of its own counts too when it adds what it
    backpropagates into state its caller holds (`self.running += loss` in a `training_step`,
    `stats.meter("loss").add_(loss)` on a parameter): each call keeps its graph there, unless
    the function binds that state afresh itself (`self.running = 0.0` first).

    The parts a backpropagated loss is made of count too (`history.append(parts)` after
    `loss = sum(parts)`, also `history.append(recon)` after `loss, recon, kl = vae_loss(...)`
    when the function of the file returns `recon + kl` beside them), so do a backpropagated dict of losses itself, whichever function
    returned it (`history.append(losses)` after `losses["total"].backward()`), and its entries
    (`totals[key] += parts[key]` after `parts["total"].backward()`, also in a loop nested in
    that step), so does the very attribute backpropagated (`train_loss += output.loss` after
    `output.loss.backward()`, a Hugging Face model's output) or arithmetic on what was
    backpropagated (`error += batch_error / len(loader)`), and so does a loss accumulated with `+=` in a function that puts
    the model in `eval()` mode but forgets `torch.no_grad()`. An accumulator created afresh
    in each iteration of an outer loop and differentiated there (`style_loss = 0.` per step, or an attribute, `self.info_loss = 0.0`,
    `style_loss += ...` over the layers, then `style_loss.backward()`,
    `torch.autograd.grad(style_loss, params)` or a differentiable optimizer's
    `diffopt.step(style_loss)`) is correct code. So is a container that cannot outlive one
    step: created afresh for each batch (in each iteration of a loop drawing them, also
    through a logger's `metric_logger.log_every(loader, ...)`), or in each iteration of a loop
    whose body backpropagates or steps the optimizer and filled only by loops inside that
    iteration that neither step nor draw batches (`logits.append(model(chunk))` over the
    step's inputs, a micro-batch's output kept after its `backward()`). So is a list of
    losses that code backpropagates later, after the loop (`losses.append(loss)` over
    several forwards, then `accelerator.backward(losses[i])` or `for loss in losses:
    loss.backward()`) or, all at once, later in it (`torch.stack(task_losses).sum().backward()`
    every few tasks, before the list is renewed), also by a function of the file called after the
    loop that reads it (`critic.saved_values.append(value)` in each step, `update()` after the
    episode). A loop trains when it
    calls `.backward()` itself or through a function of the file (a closure, a helper, a
    method of `self`). A Lightning module's `training_step` is one iteration of the
    framework's loop (`self.losses.append(loss)` there keeps every batch's graph), and
    what it returns is what the framework backpropagates (a loss, or a dict holding it under
    `"loss"`), unless the module turns automatic optimization off. An entry of a dict that
    the code names otherwise than the entry it backpropagated (`out["n_samples"]` beside
    `out["loss"]`) is not taken for a loss. A
    training loop in a method of the model itself (a `fit` method) counts like any other; a
    `forward` that collects one pass's features does not. What a helper or method of the file
    backpropagated and returned counts too (`loss = self.train_step(batch)`, then
    `total += loss`; `for name, value in parts.items()` over the dict of losses it returned),
    and so does the result of a loss function reached only through its name (a `loss` or
    `loss_func` parameter, `self.loss_function`, `yolo_losses[i]`). A function under a
    decorator that may turn gradients off is not reported: one of the file whose code spells
    `no_grad`/`inference_mode`, or one imported from a project module that does
    (`@smart_inference_mode()`). Nor is a value computed inside a
    `with torch.no_grad():` block (`weights = F.softmax(output, dim=1)` there has no graph,
    whatever it was computed from), nor the value of a metric that is never differentiable
    (torchmetrics' `Accuracy`, `F1Score`, `AUROC`: `train_acc += accuracy(logits, y)`),
    nor a loss fed only detached tensors (`criterion(pred.detach().cpu(), y.detach().cpu())`).

    A loss (or a dict or list holding it, or the parts it is made of) handed without
    `.item()`/`.detach()` to a method of a class of the same file that accumulates its
    argument into `self` state - an `AverageMeter.update(val, n)` doing
    `self.sum += val * n`, a tracker appending to `self.history` - is reported at the call;
    the message names the accumulating statement. A meter that converts its argument
    (`val = float(val)`, `val = val.item()`), a class whose own method backpropagates what
    it stored (a policy's `train_net()` over the log-probabilities `put_data` kept) and
    classes of other files or libraries
    (torchmetrics) are left alone.

    ## Why is this bad?
    A tensor that requires grad holds a reference to the whole autograd graph that produced
    it: every activation saved for backward. Keeping one per iteration keeps every
    iteration's graph alive, so memory grows step after step until the run dies with an
    out-of-memory error, usually hours in. Store a Python number with `.item()` (or a
    detached tensor with `.detach()`) instead.

    ## Example
    ```python
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss)
    ```

    Use instead:
    ```python
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    ```

    ## Fix safety
    The fix appends `.item()`, which is unsafe: it is offered only for values that are
    scalars (something `.backward()` is called on, or a loss), it synchronises with the GPU,
    and the stored values become Python floats rather than tensors.

    ## References
    - [PyTorch FAQ: my model reports "cuda runtime error(2): out of memory"](https://pytorch.org/docs/stable/notes/faq.html#my-model-reports-cuda-runtime-error-2-out-of-memory)
    - [`torch.Tensor.item`](https://pytorch.org/docs/stable/generated/torch.Tensor.item.html)
    """

    code = "TCK101"
    name = "loss-kept-with-graph"
    message = "Graph-attached tensor kept across loop iterations; store `.item()` or `.detach()`"
    fix_title = "Store `.item()`"
    fix_safety = FixSafety.UNSAFE
    required_text = (".append(", ".extend(", ".insert(", "+=", ".add_(")
    required_pattern = SELF_ACCUMULATION_TEXT

    VALID = (
        Valid(
            """
def train(loader, model, criterion, optimizer):
    total = 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        loss = loss.data
        total += loss
    return total
"""
        ),
        Valid(
            """
def validate(model, loader, criterion):
    losses = []
    for x, y in loader:
        pred = model(x)
        loss = criterion(pred.detach().cpu(), y.detach().cpu())  # fed only detached tensors: no graph
        losses.append(loss)
    return losses
"""
        ),
        Valid(
            """
class Learner:
    def training_step(self, batch, totals):
        self.step_loss = 0.0
        loss = self.model(batch).mean()
        self.step_loss += loss
        totals.loss += loss.item()
        loss.backward()
        return loss
"""
        ),
        Valid(
            """
def train(model, loader, criterion, optimizer):
    total = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss = loss.detach().cpu().numpy()  # the name now holds a NumPy value
        total += loss
"""
        ),
        Valid(
            """
class Trainer:
    def train_generator(self, batches, optimizer):
        for fake, codes in batches:
            optimizer.zero_grad()
            loss = self.adversarial(fake)
            self.info_loss = 0.0  # renewed in each step that backpropagates it
            for c in range(codes.shape[1]):
                self.info_loss += self.ce_loss(fake[:, c], codes[:, c])
            loss = loss + 0.1 * self.info_loss
            loss.backward()
            optimizer.step()
"""
        ),
        Valid(
            """
import torch
from torch import nn
critic = nn.Linear(4, 1)
critic.saved_values = []
optimizer = torch.optim.Adam(critic.parameters())
def update(returns):
    loss = sum((value - r) ** 2 for value, r in zip(critic.saved_values, returns))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del critic.saved_values[:]
def train(env, episodes):
    for episode in range(episodes):
        state, returns = env.reset(), []
        for step in range(200):
            critic.saved_values.append(critic(torch.as_tensor(state)))  # backpropagated by `update()` below
            state, reward, done = env.step(0)
            returns.append(reward)
            if done:
                break
        update(returns)
"""
        ),
        Valid(
            """
import torch
import torch.nn as nn

def train_heads(model, heads, optimizers, loader, metric_logger):
    for inp, target in metric_logger.log_every(loader, 20, "train"):
        with torch.no_grad():
            features = model(inp)
        losses = []
        for head in heads:
            losses.append(nn.CrossEntropyLoss()(head(features), target))
        for optimizer, loss in zip(optimizers, losses):
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

class Trainer:
    def train_step(self, chunks):
        done = False
        while not done:
            self.optimizer.zero_grad()
            outputs = []
            for chunk in chunks:
                output = self.loss_fn(self.model, chunk)
                outputs.append(output)
                (output[0] / len(chunks)).backward()
            if not self.optimizer.step():
                continue
            done = True
        self.post_loss_fn(outputs)

class MAML:
    def train_loop(self, loader, optimizer):
        task_losses, count = [], 0
        for x, _ in loader:
            task_losses.append(self.set_forward_loss(x))
            count += 1
            if count == self.n_task:
                torch.stack(task_losses).sum(0).backward()
                optimizer.step()
                optimizer.zero_grad()
                task_losses, count = [], 0

def forwards_then_backwards(model, loader, accelerator):
    losses = []
    for batch in loader:
        losses.append(model(batch).mean())
    for loss in losses:
        accelerator.backward(loss)
"""
        ),
        Valid(
            """
import torch
from lightning.pytorch import LightningModule

class Forecaster(LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)
        self.step_outputs = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        log = {"loss": torch.nn.functional.l1_loss(self.net(x), y), "n_samples": x.size(0)}
        self.step_outputs.append({"loss": log["loss"].detach(), "n_samples": log["n_samples"]})
        return log
"""
        ),
        Valid(
            """
import torch
def train(model, loader, optimizer, interleave):
    for x, y in loader:
        inputs = list(torch.split(x, 16))
        logits = [model(inputs[0])]
        for chunk in inputs[1:]:
            logits.append(model(chunk))
        logits = interleave(logits)
        loss = torch.cat(logits).logsumexp(-1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""
        ),
        Valid(
            """
import torch

class Learner:
    def update_model(self, states, demo):
        self.update_step += 1
        actor_loss = torch.zeros(1)
        if self.update_step % self.policy_update_freq == 0:
            actor_loss = self.actor(states).mean()
            actor_loss = 0.5 * actor_loss + 0.5 * self.bc(demo)
            self.actor_optim.zero_grad()
            actor_loss.backward()
            self.actor_optim.step()
        return actor_loss.item()
"""
        ),
        Valid(
            """
import torch

def train(model, batches, optimizer, scales):
    for x, y, scale in zip(batches, scales):
        total_loss = sum(part for part in model(x, y).values())
        if scale != 1.0:
            total_loss = total_loss * scale
        total_loss.backward()
        optimizer.step()
"""
        ),
        Valid(
            """
import torch

def train(generator, discriminator, criterion, loader, optimizer):
    for noise, real in loader:
        optimizer.zero_grad()
        fake = generator(noise)
        loss_g = (fake - real).abs().mean()
        adv_loss = torch.tensor(0.0)
        for score in discriminator(fake):
            adv_loss += criterion(score, torch.ones_like(score))
        loss_g += 0.1 * adv_loss
        loss_g.backward()
        optimizer.step()
"""
        ),
        Valid(
            """
def train_step(model, chunks, optimizer):
    optimizer.zero_grad()
    total = 0.0
    for chunk in chunks:
        total = total + model(chunk).mean()
    total.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch.nn.functional as F
def train_generator(generator, discriminator, loader, optimizer, weight):
    for mel, audio in loader:
        fake, real = discriminator(generator(mel)), discriminator(audio)
        feature_loss = 0
        for fake_layer, real_layer in zip(fake, real):
            feature_loss += F.l1_loss(fake_layer, real_layer.detach())
        optimizer.zero_grad()
        (-fake[-1].mean() + weight * feature_loss).backward()
        optimizer.step()
"""
        ),
        Valid(
            """
import torch.nn.functional as F
def train_epoch(model, loader, optimizer, epoch, aligner_epoch):
    for batch in loader:
        mel_loss, predictions, texts, lengths = model(batch)
        if epoch >= aligner_epoch:
            text_loss = 0
            for prediction, text, length in zip(predictions, texts, lengths):
                text_loss += F.cross_entropy(prediction[:length], text[:length])
            loss = mel_loss + 0.1 * text_loss
        else:
            loss = mel_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""
        ),
        Valid(
            """
import higher
import torch
import torch.nn.functional as F
def meta_train(model, loader, support_domains, inner_steps):
    for batch in loader:
        with higher.innerloop_ctx(model, optimizer) as (inner_model, inner_optimizer):
            for _ in range(inner_steps):
                inner_loss = 0
                for x, y in support_domains:
                    inner_loss += F.cross_entropy(inner_model(x), y)
                inner_optimizer.step(inner_loss)
        task_loss = 0
        for x, y in support_domains:
            task_loss += F.cross_entropy(model(x), y)
        grads = torch.autograd.grad(task_loss, model.parameters())

def gradient_alignment(network, environments):
    total, env_grads = 0, []
    for x, y in environments:
        env_loss = F.cross_entropy(network(x), y)
        total += env_loss
        env_grads.append(torch.autograd.grad(env_loss, network.parameters(), create_graph=True))
    mean_loss = total / len(environments)
    mean_grad = torch.autograd.grad(mean_loss, network.parameters(), retain_graph=True)
    return mean_loss, env_grads, mean_grad
"""
        ),
        Valid(
            """
import torch
class Policy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.data = []
        self.fc = torch.nn.Linear(4, 2)
    def put_data(self, item):
        self.data.append(item)
    def train_net(self, optimizer):
        for reward, prob in self.data:
            (-torch.log(prob) * reward).backward()
        optimizer.step()
        self.data = []
def run(env, pi, optimizer, episodes):
    for _ in range(episodes):
        state, done = env.reset(), False
        while not done:
            prob = pi(state)
            state, reward, done = env.step(prob.argmax().item())
            pi.put_data((reward, prob[0]))
        pi.train_net(optimizer)
"""
        ),
        Valid(
            """
def forwards_then_backwards(model, loader, accelerator):
    losses = []
    for batch in loader:
        losses.append(model(batch).mean())
    for index in range(len(losses)):
        loss = losses[index]
        accelerator.backward(loss)
"""
        ),
        Valid(
            """
import torch

def perturb(model, inputs, steps, optimizer):
    for step in range(steps):
        loss = 0.0
        parts = []
        for x in inputs:
            part = -torch.log(model(x).sum())
            loss += part
            parts.append(part)
        loss.backward()
        optimizer.step()
"""
        ),
        Valid(
            """
def train(module, loader, optimizer):
    outputs = []
    for i, batch in enumerate(loader):
        output = module.training_step(batch, i)
        output["loss"].backward()
        optimizer.step()
        output["loss"] = output["loss"].detach()
        outputs.append(output)
    return outputs
"""
        ),
        Valid(
            """
def train(model, loader, optimizer, scale):
    metrics = {"kl": 0.0}
    for x, ref in loader:
        kl_loss = (model(x) - ref).pow(2).mean()
        kl_loss.backward()
        optimizer.step()
        metrics["kl"] += kl_loss.detach().item() * scale
"""
        ),
        Valid(
            """
def fit(parameters, loss_terms, optimizer, steps):
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        total = sum(loss_terms(parameters))
        total.backward()
        optimizer.step()
        history.append(total.detach())
    return history
"""
        ),
        Valid(
            """
import torch
losses = []
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss.item())
"""
        ),
        Valid(
            """
import torch
losses, total = [], 0.0
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss.detach())
    total += float(loss)
"""
        ),
        Valid(
            """
import torch
preds = []
with torch.no_grad():
    for x, y in loader:
        preds.append(model(x))
"""
        ),
        Valid(
            """
import torch

@torch.no_grad()
def evaluate(model, loader):
    outputs = []
    for x, _ in loader:
        outputs.append(model(x))
    return outputs
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    loss = criterion(model(x), y)
    loss += 0.1 * model.weight.norm()
    loss.backward()
"""
        ),
        Valid(
            """
import torch.nn as nn

class Encoder(nn.Module):
    def forward(self, x):
        features = []
        for block in self.blocks:
            x = self.norm(block(x))
            features.append(x)
        return features
"""
        ),
        Valid(
            """
count = 0
for batch in loader:
    count += 1
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    def closure():
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)
"""
        ),
        Valid(
            """
import torch.nn.functional as F
for step in range(num_steps):
    optimizer.zero_grad()
    style_loss = 0.0
    for layer in style_layers:
        style_loss += F.mse_loss(gram(features[layer]), style_targets[layer])
    total = style_weight * style_loss + content_weight * content_loss
    total.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
import torch.nn.functional as F
def fisher_diagonal(model, loader):
    fisher = {n: torch.zeros_like(p) for n, p in model.named_parameters()}
    for x, y in loader:
        output = model(x)
        with torch.no_grad():
            weights = F.softmax(output, dim=1)  # computed with gradients off: no graph
        for label in range(output.shape[1]):
            model.zero_grad()
            F.cross_entropy(output, torch.full_like(y, label)).backward(retain_graph=True)
            for n, p in model.named_parameters():
                fisher[n] += weights[0, label] * p.grad.detach() ** 2
    return fisher
"""
        ),
        Valid(
            """
import torch
def evaluate(model, data):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in data:
            total += criterion(model(x), y)
    return total / len(data)
"""
        ),
        Valid(
            """
import torch

class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        if torch.is_tensor(val):
            val = val.item()
        self.sum += val * n
        self.count += n

class FloatMeter:
    def update(self, val, n=1):
        val = float(val)
        self.total = self.total + val * n

class RawMeter:
    def update(self, val, n=1):
        self.sum += val * n

def train(model, loader, val_loader, criterion, optimizer):
    losses = AverageMeter()
    floats = FloatMeter()
    raw = RawMeter()
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss, x.size(0))
        floats.update(loss, x.size(0))
        raw.update(loss.item(), x.size(0))
        raw.update(loss.detach())
    with torch.no_grad():
        for x, y in val_loader:
            raw.update(criterion(model(x), y))
"""
        ),
        Valid(
            """
from torchmetrics import MeanMetric

def train(model, loader, criterion, optimizer):
    mean_loss = MeanMetric()
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        mean_loss.update(loss)
"""
        ),
        Valid(
            """
import torch.nn.functional as F

class GanTrainer:
    def _backward(self, loss, chunks):
        loss = loss / chunks
        loss.backward()
        return loss.item() * chunks

    def train(self, generator, discriminator, optimizer, chunks, steps):
        for _ in range(steps):
            optimizer.zero_grad()
            total = 0
            for _ in range(chunks):
                loss = F.softplus(-discriminator(generator.sample())).mean()
                total += self._backward(loss, chunks)
                total += loss.item()
            optimizer.step()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn


class Trainer:
    def __init__(self, model, crit):
        self.model = model
        self.crit = crit

    def _get_loss(self, y_hat, y, crit=None):
        crit = self.crit if crit is None else crit
        return crit(y_hat.view(-1, y_hat.size(-1)), y.view(-1))

    def train_epoch(self, loader, optimizer):
        total_loss = 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = self._get_loss(self.model(x), y)
            loss.div(y.size(0)).backward()
            total_loss += loss  # TCK101
            optimizer.step()
        return total_loss
""",
            expected_replacement="""
import torch.nn as nn


class Trainer:
    def __init__(self, model, crit):
        self.model = model
        self.crit = crit

    def _get_loss(self, y_hat, y, crit=None):
        crit = self.crit if crit is None else crit
        return crit(y_hat.view(-1, y_hat.size(-1)), y.view(-1))

    def train_epoch(self, loader, optimizer):
        total_loss = 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = self._get_loss(self.model(x), y)
            loss.div(y.size(0)).backward()
            total_loss += loss.item()  # TCK101
            optimizer.step()
        return total_loss
"""
        ),
        Invalid(
            """
class Trainer:
    def train_epoch(self):
        epoch_loss = 0.0
        for batch in self.train_loader:
            loss = self.model(batch).loss
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            if self.step % self.log_every == 0:
                self.log(loss)
            epoch_loss += loss  # TCK101
            self.step += 1
        return epoch_loss / len(self.train_loader)
""",
            expected_replacement="""
class Trainer:
    def train_epoch(self):
        epoch_loss = 0.0
        for batch in self.train_loader:
            loss = self.model(batch).loss
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            if self.step % self.log_every == 0:
                self.log(loss)
            epoch_loss += loss.item()  # TCK101
            self.step += 1
        return epoch_loss / len(self.train_loader)
"""
        ),
        Invalid(
            """
import torch.nn.functional as F

def vae_loss(recon, x, mu, logvar):
    reconstruction = F.mse_loss(recon, x)
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).mean()
    total = reconstruction + kl
    return total, reconstruction, kl

def train(model, loader, optimizer):
    reconstructions, kls = [], []
    for x in loader:
        optimizer.zero_grad()
        loss, reconstruction, kl = vae_loss(*model(x), x)
        reconstructions.append(reconstruction)  # TCK101
        kls.append(kl.item())
        loss.backward()
        optimizer.step()
    return reconstructions, kls
""",
            expected_replacement="""
import torch.nn.functional as F

def vae_loss(recon, x, mu, logvar):
    reconstruction = F.mse_loss(recon, x)
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).mean()
    total = reconstruction + kl
    return total, reconstruction, kl

def train(model, loader, optimizer):
    reconstructions, kls = [], []
    for x in loader:
        optimizer.zero_grad()
        loss, reconstruction, kl = vae_loss(*model(x), x)
        reconstructions.append(reconstruction.item())  # TCK101
        kls.append(kl.item())
        loss.backward()
        optimizer.step()
    return reconstructions, kls
""",
        ),
        Invalid(
            """
def take_training_step(model, criterion, batch, stats, scaler):
    loss = criterion(model(batch["inputs"]), batch["labels"])
    stats.meter("loss").add_(loss)  # TCK101
    scaler.scale(loss).backward()
class Learner:
    def training_step(self, batch):
        loss = self.model(batch).mean()
        self.running_loss += loss  # TCK101
        loss.backward()
        return loss
""",
            expected_replacement="""
def take_training_step(model, criterion, batch, stats, scaler):
    loss = criterion(model(batch["inputs"]), batch["labels"])
    stats.meter("loss").add_(loss.item())  # TCK101
    scaler.scale(loss).backward()
class Learner:
    def training_step(self, batch):
        loss = self.model(batch).mean()
        self.running_loss += loss.item()  # TCK101
        loss.backward()
        return loss
""",
        ),
        Invalid(
            """
def fit_one_epoch(net, detection_loss, optimizer, loader):
    total_loss = 0
    total_box_loss = 0
    for images, targets in loader:
        optimizer.zero_grad()
        loss, cls_loss, box_loss = detection_loss(net(images), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss  # TCK101
        total_box_loss += box_loss  # TCK101
    return total_loss, total_box_loss
""",
            expected_replacement="""
def fit_one_epoch(net, detection_loss, optimizer, loader):
    total_loss = 0
    total_box_loss = 0
    for images, targets in loader:
        optimizer.zero_grad()
        loss, cls_loss, box_loss = detection_loss(net(images), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()  # TCK101
        total_box_loss += box_loss.item()  # TCK101
    return total_loss, total_box_loss
""",
        ),
        Invalid(
            """
def train(model, loader, criterion, optimizer):
    total = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss  # TCK101
        loss = loss.detach().cpu().numpy()
"""
        ),
        Invalid(
            """
class Trainer:
    def train_generator(self, batches, optimizer):
        self.info_loss = 0.0  # set once: every step's graph is kept
        for fake, codes in batches:
            optimizer.zero_grad()
            loss = self.adversarial(fake)
            for c in range(codes.shape[1]):
                self.info_loss += self.ce_loss(fake[:, c], codes[:, c])  # TCK101
            loss = loss + 0.1 * self.info_loss
            loss.backward()
            optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from torch import nn
critic = nn.Linear(4, 1)
critic.saved_values = []
optimizer = torch.optim.Adam(critic.parameters())
def report(returns):
    print(sum(critic.saved_values), sum(returns))
def train(env, episodes):
    for episode in range(episodes):
        state, returns = env.reset(), []
        for step in range(200):
            value = critic(torch.as_tensor(state))
            loss = (value - 1.0) ** 2
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            critic.saved_values.append(value)  # TCK101
            state, reward, done = env.step(0)
            returns.append(reward)
        report(returns)
""",
            expected_replacement="""
import torch
from torch import nn
critic = nn.Linear(4, 1)
critic.saved_values = []
optimizer = torch.optim.Adam(critic.parameters())
def report(returns):
    print(sum(critic.saved_values), sum(returns))
def train(env, episodes):
    for episode in range(episodes):
        state, returns = env.reset(), []
        for step in range(200):
            value = critic(torch.as_tensor(state))
            loss = (value - 1.0) ** 2
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            critic.saved_values.append(value.item())  # TCK101
            state, reward, done = env.step(0)
            returns.append(reward)
        report(returns)
""",
        ),
        Invalid(
            """
import torch
from torchmetrics import Accuracy
def train(model, loader, loss_fn, optimizer, epochs):
    accuracy = Accuracy(task="multiclass", num_classes=10)
    for epoch in range(epochs):
        train_loss, train_acc = 0, 0
        for x, y in loader:
            logits = model(x)
            loss = loss_fn(logits, y)
            train_loss += loss  # TCK101
            train_acc += accuracy(logits, y)  # a metric that is never differentiable: no graph
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
""",
            expected_replacement="""
import torch
from torchmetrics import Accuracy
def train(model, loader, loss_fn, optimizer, epochs):
    accuracy = Accuracy(task="multiclass", num_classes=10)
    for epoch in range(epochs):
        train_loss, train_acc = 0, 0
        for x, y in loader:
            logits = model(x)
            loss = loss_fn(logits, y)
            train_loss += loss.item()  # TCK101
            train_acc += accuracy(logits, y)  # a metric that is never differentiable: no graph
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
""",
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
def fisher_diagonal(model, loader, optimizer):
    weighted = 0.0
    for x, y in loader:
        output = model(x)
        weights = F.softmax(output, dim=1)
        loss = F.cross_entropy(output, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        weighted += weights[0, 0] * loss.detach()  # TCK101
    return weighted
"""
        ),
        Invalid(
            """
def fit(model, data, optimizer, epochs, batch_size):
    for epoch in range(epochs):
        history = []
        for start in range(0, len(data), batch_size):
            loss = model(data[start:start + batch_size]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(loss)  # TCK101
""",
            expected_replacement="""
def fit(model, data, optimizer, epochs, batch_size):
    for epoch in range(epochs):
        history = []
        for start in range(0, len(data), batch_size):
            loss = model(data[start:start + batch_size]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(loss.item())  # TCK101
""",
        ),
        Invalid(
            """
import torch
from lightning.pytorch import LightningModule

class Forecaster(LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)
        self.step_outputs = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        log = {"loss": torch.nn.functional.l1_loss(self.net(x), y), "n_samples": x.size(0)}
        self.step_outputs.append(log)  # TCK101
        return log
"""
        ),
        Invalid(
            """
import torch
from losses import planning_losses
def train_epoch(model, loader, optimizer, alpha):
    history = []
    for batch in loader:
        optimizer.zero_grad()
        losses = planning_losses(model, batch)
        losses["total"] = losses["ego"] + alpha * losses["neighbours"]
        losses["total"].backward()
        optimizer.step()
        history.append(losses)  # TCK101
    return history
"""
        ),
        Invalid(
            """
import torch

def train(model, loader, optimizer, stats):
    running = torch.zeros(())
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running.add_(loss)  # TCK101
        stats.meter("loss").add_(loss)  # TCK101
    return running
""",
            expected_replacement="""
import torch

def train(model, loader, optimizer, stats):
    running = torch.zeros(())
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running.add_(loss.item())  # TCK101
        stats.meter("loss").add_(loss.item())  # TCK101
    return running
""",
        ),
        Invalid(
            """
def fit(model, loader, optimizer, alpha=0.1):
    running, smoothed = 0.0, None
    for x, y in loader:
        loss = model(x, y)
        loss.backward()
        optimizer.step()
        running = running + loss  # TCK101
        if smoothed is not None:
            smoothed = alpha * loss + (1 - alpha) * smoothed  # TCK101
        else:
            smoothed = loss.item()
    return running, smoothed
""",
            expected_replacement="""
def fit(model, loader, optimizer, alpha=0.1):
    running, smoothed = 0.0, None
    for x, y in loader:
        loss = model(x, y)
        loss.backward()
        optimizer.step()
        running = (running + loss).item()  # TCK101
        if smoothed is not None:
            smoothed = (alpha * loss + (1 - alpha) * smoothed).item()  # TCK101
        else:
            smoothed = loss.item()
    return running, smoothed
""",
        ),
        Invalid(
            """
import torch.nn.functional as F
def fit(model, loader, val_loader, optimizer, plateau, epochs):
    history = []
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        val_loss = 0
        for x, y in val_loader:
            val_loss += F.cross_entropy(model(x), y)  # TCK101
        plateau.step(val_loss)
        history.append(val_loss)  # TCK101
    return history
""",
            """
import torch.nn.functional as F
def fit(model, loader, val_loader, optimizer, plateau, epochs):
    history = []
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        val_loss = 0
        for x, y in val_loader:
            val_loss += F.cross_entropy(model(x), y)  # TCK101
        plateau.step(val_loss)
        history.append(val_loss.item())  # TCK101
    return history
""",
        ),
        Invalid(
            """
import torch
import torch.nn.functional as F
def adapt(model, tasks):
    query_losses = []
    for x, y in tasks:
        loss = F.cross_entropy(model(x), y)
        grads = torch.autograd.grad(loss, model.parameters())
        query_losses.append(loss)  # TCK101
    return grads, query_losses
""",
            expected_replacement="""
import torch
import torch.nn.functional as F
def adapt(model, tasks):
    query_losses = []
    for x, y in tasks:
        loss = F.cross_entropy(model(x), y)
        grads = torch.autograd.grad(loss, model.parameters())
        query_losses.append(loss.item())  # TCK101
    return grads, query_losses
""",
        ),
        Invalid(
            """
def fit(parameters, loss_terms, optimizer, steps):
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        history.append(sum(loss_terms(parameters)))  # TCK101
        history[-1].backward()
        optimizer.step()
    return history
"""
        ),
        Invalid(
            """
def train_epoch(model, loader, optimizer):
    history = []
    for batch in loader:
        optimizer.zero_grad()
        losses = model.calculate_loss(batch)
        loss = sum(losses) if isinstance(losses, tuple) else losses
        loss.backward()
        optimizer.step()
        history.append(losses)  # TCK101
    return sum(history).item()
""",
            expected_replacement="""
def train_epoch(model, loader, optimizer):
    history = []
    for batch in loader:
        optimizer.zero_grad()
        losses = model.calculate_loss(batch)
        loss = sum(losses) if isinstance(losses, tuple) else losses
        loss.backward()
        optimizer.step()
        history.append(losses.item())  # TCK101
    return sum(history).item()
""",
        ),
        Invalid(
            """
from accelerate import Accelerator

def train(model, loader, optimizer):
    accelerator = Accelerator()
    total = 0.0
    for batch in loader:
        loss = model(**batch).loss
        accelerator.backward(loss)
        optimizer.step()
        total += loss  # TCK101
""",
            expected_replacement="""
from accelerate import Accelerator

def train(model, loader, optimizer):
    accelerator = Accelerator()
    total = 0.0
    for batch in loader:
        loss = model(**batch).loss
        accelerator.backward(loss)
        optimizer.step()
        total += loss.item()  # TCK101
""",
        ),
        Invalid(
            """
def fit(model, loss, optimizer, loader, epochs):
    for epoch in range(epochs):
        error, history = 0.0, []
        for xs, ys in loader:
            batch_error = loss(model(xs), ys)
            optimizer.zero_grad()
            batch_error.backward()
            optimizer.step()
            error += batch_error / len(loader)  # TCK101
            history.append(batch_error * 100)  # TCK101
""",
            expected_replacement="""
def fit(model, loss, optimizer, loader, epochs):
    for epoch in range(epochs):
        error, history = 0.0, []
        for xs, ys in loader:
            batch_error = loss(model(xs), ys)
            optimizer.zero_grad()
            batch_error.backward()
            optimizer.step()
            error += (batch_error / len(loader)).item()  # TCK101
            history.append((batch_error * 100).item())  # TCK101
""",
        ),
        Invalid(
            """
def fine_tune(model, loader, optimizer):
    train_loss, seen = 0, 0
    for batch in loader:
        output = model(**batch)
        output.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        train_loss += output.loss  # TCK101
        seen += output.logits.shape[0]
    return train_loss / seen
""",
            expected_replacement="""
def fine_tune(model, loader, optimizer):
    train_loss, seen = 0, 0
    for batch in loader:
        output = model(**batch)
        output.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        train_loss += output.loss.item()  # TCK101
        seen += output.logits.shape[0]
    return train_loss / seen
""",
        ),
        Invalid(
            """
import torch
losses = []
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss)  # TCK101
""",
            expected_replacement="""
import torch
losses = []
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss.item())  # TCK101
""",
        ),
        Invalid(
            """
import torch
total_loss = 0
for x, y in loader:
    loss = model(x).sum()
    loss.backward()
    total_loss += loss  # TCK101
""",
            expected_replacement="""
import torch
total_loss = 0
for x, y in loader:
    loss = model(x).sum()
    loss.backward()
    total_loss += loss.item()  # TCK101
""",
        ),
        Invalid(
            """
import torch
outputs = []
for x, _ in loader:
    outputs.append(model(x))  # TCK101
"""
        ),
        Invalid(
            """
import torch
for epoch in range(10):
    history = []
    for step, (x, y) in enumerate(train_loader):
        out = outputs = model(x)
        loss = loss_fn(out, y)
        history.append(loss)  # TCK101
        loss.backward()
""",
            expected_replacement="""
import torch
for epoch in range(10):
    history = []
    for step, (x, y) in enumerate(train_loader):
        out = outputs = model(x)
        loss = loss_fn(out, y)
        history.append(loss.item())  # TCK101
        loss.backward()
""",
        ),
        Invalid(
            """
import torch
history = []
for x, y in loader:
    parts = [criterion(model(x), y), 0.01 * model.weight.norm()]
    loss = sum(parts)
    loss.backward()
    optimizer.step()
    history.append(parts)  # TCK101
"""
        ),
        Invalid(
            """
import torch
def evaluate(model, data):
    model.eval()
    total = 0.0
    for x, y in data:
        total += criterion(model(x), y)  # TCK101
    return total / len(data)
"""
        ),
        Invalid(
            """
class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0, 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n

def train(model, loader, criterion, optimizer):
    losses = AverageMeter()
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss, x.size(0))  # TCK101
""",
            expected_replacement="""
class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0, 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n

def train(model, loader, criterion, optimizer):
    losses = AverageMeter()
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss.item(), x.size(0))  # TCK101
""",
        ),
        Invalid(
            """
class LossTracker:
    def __init__(self):
        self.history = {}

    def add(self, losses):
        for name, value in losses.items():
            self.history.setdefault(name, [])
            self.history[name].append(value)

class Trainer:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.tracker = LossTracker()

    def fit(self, loader):
        for x, y in loader:
            rate, distortion = self.model(x, y)
            loss = rate + distortion
            loss.backward()
            self.optimizer.step()
            self.tracker.add({"rate": rate, "distortion": distortion})  # TCK101
"""
        ),
        Invalid(
            """
import torch.nn.functional as F

class GanTrainer:
    def _backward(self, loss, chunks):
        loss = loss / chunks
        loss.backward()
        return loss * chunks

    def train(self, generator, discriminator, optimizer, chunks, steps):
        total = 0
        for _ in range(steps):
            optimizer.zero_grad()
            for _ in range(chunks):
                loss = F.softplus(-discriminator(generator.sample())).mean()
                total += self._backward(loss, chunks)  # TCK101
                total += loss  # TCK101
            optimizer.step()
""",
            expected_replacement="""
import torch.nn.functional as F

class GanTrainer:
    def _backward(self, loss, chunks):
        loss = loss / chunks
        loss.backward()
        return loss * chunks

    def train(self, generator, discriminator, optimizer, chunks, steps):
        total = 0
        for _ in range(steps):
            optimizer.zero_grad()
            for _ in range(chunks):
                loss = F.softplus(-discriminator(generator.sample())).mean()
                total += self._backward(loss, chunks)  # TCK101
                total += loss.item()  # TCK101
            optimizer.step()
""",
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._evaluating: set[Function | None] = set()  # functions that put a module in eval mode

    def _facts(self) -> _LoopFacts:
        return self.context.flow.loop_facts(self, _LoopFacts)

    def visit_Call(self, node: cst.Call) -> None:
        subject = self.context.differentiated_subject(node) if self.context.loops else None
        if subject is not None:  # `loss.backward()`, `torch.autograd.grad(loss, ...)` ...
            self._backpropagated(subject)
            return
        method = node.func.attr.value if type(node.func) is cst.Attribute else None
        if method == "eval" and not node.args:
            self._evaluating.add(self.context.flow.function)
        elif method in _CONTAINER_METHODS and node.args and (method != "insert" or len(node.args) >= 2):
            value = node.args[-1].value
            if method == "extend" and not (type(value) in (cst.List, cst.Tuple) and value.elements):  # type: ignore[attr-defined]
                return
            self._consider(node, root_name(node.func.value), value.elements[0].value if method == "extend" else value)  # type: ignore[attr-defined]
        elif method == "add_" and node.args and node.args[0].keyword is None:  # `total.add_(loss)`: `total += loss` in place
            total = node.func.value  # type: ignore[attr-defined]
            self._consider(node, root_name(total.func if type(total) is cst.Call else total), node.args[0].value)  # `stats.meter("loss").add_(loss)`
        elif method is not None and node.args and self.context.loops:
            self._meter_call(node, node.func.value)  # type: ignore[attr-defined]

    def visit_Return(self, node: cst.Return) -> None:
        if (returned := self.context.backpropagated_by_framework(node)) is not None:
            self._backpropagated(returned)  # `return {"loss": loss, ...}` from a Lightning `training_step`

    def visit_Assign(self, node: cst.Assign) -> None:
        """``output["loss"] = output["loss"].detach()`` after backpropagating that entry: the
        container no longer holds the graph."""
        target = node.targets[0].target
        if (total := self_accumulation(node)) is not None and self.context.loops:  # `total = total + loss`
            self._consider(node, total, node.value, created_in=accumulation_start_loop(self.context.binder, node, total, self.context.loops))
        elif len(node.targets) == 1 and isinstance(target, (cst.Subscript, cst.Name)) and is_detached(node.value) and self.context.loops:  # `loss = loss.detach().cpu()` too
            if source_text(target) in (facts := self._facts()).backpropagated.get(self.context.loops[-1], ()):
                for names in (*facts.backpropagated.values(), *facts.backpropagated_directly.values()):
                    names.discard(root_name(target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, cst.AddAssign):  # `self.info_loss += ...`: that attribute, renewed where it is set
            self._consider(node, dotted_name(node.target) if isinstance(node.target, cst.Attribute) else root_name(node.target), node.value)
            if self.context.loops and isinstance(node.value, cst.Name) and (total := root_name(node.target)) is not None:
                self._facts().summed_into.setdefault(node.value.value, set()).add(total)

    def _backpropagated(self, receiver: cst.BaseExpression) -> None:
        """Note what ``receiver.backward()`` backpropagates: the name, and the names its
        value was summed or combined from (``loss = sum(losses)``)."""
        if isinstance(receiver, cst.Call) and receiver.args:  # scaler.scale(loss).backward(), loss.div(n).backward()
            receiver = receiver.func.value if type(receiver.func) is cst.Attribute and receiver.func.attr.value in torch_api.ARITHMETIC_METHODS else receiver.args[0].value
        if (name := root_name(receiver)) is None:
            return self._note_backpropagated(combined_names(receiver))  # `(loss_g + w * loss_feat).backward()`
        names = {name, source_text(receiver)}  # `output["loss"].backward()`: that entry, until detached in place
        if isinstance(receiver, cst.Attribute) and (path := dotted_name(receiver)) is not None:
            names.add(path)  # `output.loss.backward()`: that attribute, kept as `total += output.loss`
        # `g_loss = ... + loss_s2s` on one branch, `g_loss = loss_mel` on the other
        for binding in self.context.binder.reaching(root_name_node(receiver)):  # type: ignore[arg-type]
            if type(binding.node) in (cst.Assign, cst.AugAssign):  # `loss_g += w * adv_loss`: what was added too
                names.update(combined_names(binding.node.value))  # type: ignore[attr-defined]
            names.update(unpacked_parts(self.context.binder, binding.node, binding.target, self.context.def_run_by))  # `loss, recon, kl = vae_loss(...)`
        self._note_backpropagated(names, name if isinstance(receiver, cst.Subscript) else None)

    def _note_backpropagated(self, names: set[str], entries_of: str | None = None) -> None:
        facts = self._facts()
        for loop in self.context.loops:
            facts.backpropagated.setdefault(loop, set()).update(names)
            facts.entries_backpropagated.setdefault(loop, set()).update([entries_of] if entries_of else [])
        facts.backpropagated_directly.setdefault(self.context.loops[-1], set()).update(names)

    def _meter_call(self, call: cst.Call, receiver: cst.BaseExpression) -> None:
        """``meter.update(loss, n)`` on an instance of a class of this file whose method
        accumulates the argument into ``self`` state (``self.sum += val * n``)."""
        if self.context.grad_maybe_disabled or self.context.in_module_class or not isinstance(call.func, cst.Attribute):
            return
        if call.func.attr.value not in self.context.top_level_method_names or not any(may_carry_graph(self.context, argument.value) for argument in call.args):
            return  # no class of this file has such a method, or nothing handed to it may carry a graph
        instance = instance_class_of(self.context, receiver)
        for argument, statement in accumulated_arguments(self.context.binder, call, instance) if instance is not None else ():
            if not self._backpropagated_by_a_method(instance, statement):  # type: ignore[arg-type]
                self._consider(call, root_name(receiver), argument, statement)

    def _backpropagated_by_a_method(self, owner: cst.ClassDef, statement: cst.CSTNode) -> bool:
        """What ``statement`` stores in ``self`` is read by a method of the class that
        backpropagates (a policy's ``train_net()`` over what ``put_data`` stored): the graphs
        are kept for that backward."""
        binder, stored = self.context.binder, {self_attribute(node) for node in subtree(statement)} - {None}
        readers = (binder.enclosing(node, cst.FunctionDef) for name in stored for node in references.self_attribute_references(binder, owner, name) or ())
        return any(isinstance(method, cst.FunctionDef) and self.context.summary_of(method).does(Effect.BACKWARD) for method in readers)

    def _consider(
        self, node: cst.CSTNode, container: str | None, value: cst.BaseExpression, accumulated_in: cst.CSTNode | None = None, **created: Loop | None
    ) -> None:
        loops = self.context.loops
        if not loops and not self.context.grad_maybe_disabled and (function := self.context.flow.function) is not None:
            self._kept_by_caller(node, value, function)
        if not loops or container is None or self.context.grad_maybe_disabled:
            return
        created_in = created["created_in"] if created else self._loop_creating(container, loops)
        if created_in is loops[-1]:
            return  # created inside this iteration: dies with it
        graph_attached = any(self.context.kind_of(part) is Kind.GRAPH_TENSOR for part in (value, *literal_items(value)))
        # what a function of another project file returned with its graph (or an accumulator of it)
        facts = self._facts()
        returned = None if graph_attached else self.context.returned_kind_condition(value, GRAPH) or facts.returned_into.get(dotted_name(value) or "")
        if returned is not None and isinstance(node, cst.AugAssign):
            facts.returned_into[container] = returned
        # any call may build what a later `container[-1].backward()` backpropagates (decided in `_decide`)
        if graph_attached or may_carry_graph(self.context, value) or isinstance(value, cst.Call):
            evaluating = isinstance(node, cst.AugAssign) and self.context.flow.function in self._evaluating
            candidate = _Candidate(node, value, container, loops, graph_attached or returned is not None, created_in, evaluating, accumulated_in, returned)
            facts.candidates.append(candidate)

    def _kept_by_caller(self, node: cst.CSTNode, value: cst.BaseExpression, function: Function) -> None:
        """A step function adding what it backpropagates into state its caller holds (an
        attribute of ``self`` or of a parameter, a parameter's tensor) keeps one graph per call."""
        held = accumulation_target(node)
        if held is not None and type(value) is cst.Name and self.context.differentiated(value) and held_by_caller(self.context.binder, held, function):
            self._report(_Candidate(node, value, source_text(held), (), True, None, False), True)

    def _loop_creating(self, container: str, loops: tuple[Loop, ...]) -> Loop | None:
        """The innermost of ``loops`` whose iterations bind ``container`` afresh, if any."""
        binding = self.context.flow.last_binding(container)
        return next((loop for loop in reversed(loops) if loop in binding.loops), None) if binding is not None else None

    def leave_loop(self, loop: Loop) -> None:
        """Decide once the outermost loop is complete: only then are all its calls known."""
        for candidate in (facts := self._facts()).candidates:
            scalar = self._decide(candidate, facts)
            if scalar is None and candidate.returned is not None and candidate.returned.value == GRAPH:
                # what another file's function backpropagated and returned is kept for no later backward
                candidate = replace(candidate, returned=replace(candidate.returned, value=BACKPROPAGATED))
                scalar = self._decide(candidate, facts)
            if scalar is not None:  # backpropagated here, what the callee returns does not matter
                self._report(replace(candidate, returned=None) if dotted_name(candidate.value) in facts.backpropagated.get(candidate.loops[-1], ()) else candidate, scalar)

    def _decide(self, candidate: _Candidate, facts: _LoopFacts) -> bool | None:
        """None: not a finding; else whether the kept value is a scalar loss (for the fix)."""
        renewed = facts.backpropagated.get(candidate.created_in, set()) if candidate.created_in is not None else set()  # type: ignore[arg-type]
        if candidate.container in renewed or facts.summed_into.get(dotted_name(candidate.value) or "", set()) & renewed:
            return None  # re-created every iteration of a loop that backpropagates it, or what it keeps
        if lives_one_step(self.context, candidate.loops, candidate.created_in, bool(facts.backpropagated_directly.get(candidate.created_in))):  # type: ignore[arg-type]
            return None
        # what this iteration backpropagated, also in the body of a loop around the one keeping it
        backpropagated = set(facts.backpropagated.get(candidate.loops[-1], ()))
        backpropagated.update(*(facts.backpropagated_directly.get(loop, ()) for loop in candidate.loops))
        kept_name = dotted_name(candidate.value) if isinstance(candidate.value, (cst.Name, cst.Attribute)) else None
        parts = literal_items(candidate.value)
        # `e_train += e_batch / len(loader)`: arithmetic on what was backpropagated keeps its graph
        scaled = isinstance(candidate.value, cst.BinaryOperation) and bool(combined_names(candidate.value) & backpropagated)
        # `epoch_loss[key] += losses[key]` after `losses["total"].backward()`: an entry of what was backpropagated
        kept_entry = isinstance(candidate.value, cst.Subscript) and root_name(candidate.value) in backpropagated and not another_named_entry(candidate.value, backpropagated)
        is_backward_target = kept_name in backpropagated or kept_entry or scaled or any(root_name(part) in backpropagated and not another_named_entry(part, backpropagated) for part in parts)
        is_backward_target |= candidate.returned is not None and candidate.returned.value in (GRAPH_ENTRIES, BACKPROPAGATED)  # what the callee backpropagated
        # `losses.append(total)`, then `losses[-1].backward()`: every entry was backpropagated, and stays
        entry = candidate.container in facts.entries_backpropagated.get(candidate.loops[-1], ())
        if not (candidate.graph_attached or is_backward_target or entry):
            return None
        if entry and not is_backward_target:
            return None if kept_for_a_later_backward(self.context, candidate.node, candidate.loops) else False  # `.item()` would break that backward
        in_data_loop = any(self.context.is_training_loop(loop) or self.context.iterates_dataloader(loop) for loop in candidate.loops)
        evaluation = candidate.evaluating and not any(self.context.is_training_loop(loop) for loop in candidate.loops)
        if not (is_backward_target or in_data_loop or evaluation):
            return None
        if kept_for_a_later_backward(self.context, candidate.node, candidate.loops):
            return None
        if parts or (kept_name is not None and (self.context.kind_of(candidate.value) is Kind.OTHER or kept_name in facts.entries_backpropagated.get(candidate.loops[-1], ()))):
            return False  # a list or dict of losses: no `.item()` to take
        if kept_entry and self.context.kind_of(candidate.value.value) in TENSOR_KINDS:  # type: ignore[attr-defined]
            return False  # `loss[0]` of a tensor loss: indexing is the mistake (TCK115), `.item()` would not help
        return is_backward_target or _looks_like_loss(candidate.value)

    def _report(self, candidate: _Candidate, scalar: bool) -> None:
        node, value, message = candidate.node, candidate.value, self._message_for(candidate)
        conditions = (*self.context.grad_conditions, *filter(None, [candidate.returned]))  # no decorator of another file turned gradients off
        if not scalar:
            return self.report(node, message, conditions=conditions)
        receiver = value if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) else value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # `(loss / n).item()`
        with_item = cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("item")))
        if isinstance(node, cst.AugAssign):
            self.report(node, message, replacement=node.with_changes(value=with_item), conditions=conditions)
        else:
            self.report(node, message, replacement=with_item, replace_target=value, conditions=conditions)

    def _message_for(self, candidate: _Candidate) -> str | None:
        """For a project method's call: name the statement that accumulates the argument."""
        if not candidate.loops:
            return _KEPT_BY_CALLER.format(held=candidate.container)
        statement = candidate.accumulated_in
        if statement is None or not isinstance(candidate.node, cst.Call):
            return None
        called, kept, line = source_text(candidate.node.func), source_text(statement).strip(), self.context.line_of(statement)
        return f"Graph-attached tensor passed to `{called}()`, which accumulates it (`{kept}`, line {line}); pass `.item()` or `.detach()`"


def _looks_like_loss(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and "loss" in value.value.lower()
