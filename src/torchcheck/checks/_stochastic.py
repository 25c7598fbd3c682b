"""Random operations replaced by their expected value, wherever they are spelled.

Checks that compare one batch with its parts (accumulated micro-batches, data-parallel
shards) cannot let randomness run: masks drawn for a batch of 8 and for two batches of 4
never agree, whatever the training loop does. Switching off ``nn.Dropout`` modules is
not enough, because dropout is spelled in many ways: ``F.dropout(x, training=...)``,
``scaled_dot_product_attention(dropout_p=...)``, ``nn.LSTM(dropout=...)``, drop-path
built from ``bernoulli_``, fused kernels. All of them meet at a few ATen operations, so
:func:`random_ops_at_expected_value` intercepts those (a ``TorchDispatchMode``, below
autograd, so the backward sees the same choice):

- every draw from a continuous distribution, and every Bernoulli mask, is replaced by
  its expected value: ``bernoulli_(p)`` fills ``p``, ``rand`` 0.5, ``randn`` 0. Inverted
  dropout ``x * mask / (1 - p)`` then computes ``x * 1``: the identity, which is what
  dropout means in expectation. Drop-path, alpha dropout and noise injection become the
  same deterministic function in both runs.
- fused kernels that draw inside (``native_dropout``, the flash/efficient/cuDNN
  attention kernels with ``dropout_p``, cuDNN RNNs with ``dropout``, ``rrelu``) run with
  their randomness off: dropout rate 0, rrelu's mean slope.
- draws of integers (``randint``, ``randperm``, ``multinomial``: indices, permutations)
  have no expected value that is itself a valid outcome, so they are left as they are
  and recorded: a failure message names them as what the runs cannot agree on.

Replaying one seeded stream in both runs instead would not do: the draws of a batch and
of its parts differ in shape and order, so the numbers one sample receives differ too.

Compiled code (``torch.compile``) cannot be reached this way: Dynamo refuses to compile
while a dispatch mode is active (the model would silently run eagerly), and a decomposed
graph computes dropout from ``rand_like(x) > p`` and a scale fixed at trace time, which no
replacement of draws at run time can turn into the identity. For compiled code
:func:`random_calls_at_expected_value` does the same one level up: a ``TorchFunctionMode``
that meets the torch functions a model calls (``F.dropout``, ``Tensor.bernoulli_``,
``scaled_dot_product_attention(dropout_p=)``); Dynamo traces a function mode into the
graph, so eager and compiled runs compute the same expected-value model.
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.nn import functional as F
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["RandomOps", "random_calls_at_expected_value", "random_ops_at_expected_value"]


@dataclass
class RandomOps:
    """What happened to random operations while the mode was on: ATen operation name
    (``aten.bernoulli_``) -> number of calls."""

    neutralised: Counter[str] = field(default_factory=Counter)
    left_on: Counter[str] = field(default_factory=Counter)

    def describe_neutralised(self) -> str:
        """``3 × aten.bernoulli_, 1 × aten.native_dropout``, or ``""``."""
        return _counts(self.neutralised)

    def describe_left_on(self) -> str:
        return _counts(self.left_on)

    def note(self) -> str:
        """The lines a failure message carries about randomness (may be empty)."""
        lines = []
        if self.neutralised:
            lines.append(
                f"Switched off during the comparison (replaced by their expected value, so dropout is the "
                f"identity): {self.describe_neutralised()}."
            )
        if self.left_on:
            lines.append(
                f"Left on (integer draws have no expected value to use): {self.describe_left_on()}; draws "
                f"for a batch and for its parts cannot agree."
            )
        return "\n".join(lines)


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{count} × {name}" for name, count in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


@contextlib.contextmanager
def random_ops_at_expected_value() -> Iterator[RandomOps]:
    """Within the block, random operations run at their expected value (see the module
    docstring); the returned record says which ran, and which were left on."""
    record = RandomOps()
    with _ExpectedValueMode(record):
        yield record


# ------------------------------------------------------------------ the mode


Arguments = dict[str, Any]
#: Expected value of one draw from the arguments of its operation: a number, or a
#: tensor broadcast to the result.
Expectation = Callable[[Arguments], "float | torch.Tensor"]


def _argument(name: str, default: float | None = None) -> Expectation:
    def expected(arguments: Arguments) -> float | torch.Tensor:
        value = arguments.get(name, default)
        return default if value is None else value

    return expected


def _bernoulli(arguments: Arguments) -> float | torch.Tensor:
    """``bernoulli(probs)`` draws with probability ``self``; the other forms take ``p``."""
    p = arguments.get("p")
    return arguments["self"] if p is None else p


#: Draws from continuous distributions (and Bernoulli masks, used as the float masks of
#: dropout): the operation's name -> its expected value.
_EXPECTED_VALUES: dict[str, Expectation] = {
    "bernoulli": _bernoulli,
    "bernoulli_": _bernoulli,
    "rand": lambda _: 0.5,
    "rand_like": lambda _: 0.5,
    "uniform_": lambda a: (a.get("from", 0.0) + a.get("to", 1.0)) / 2,
    "randn": lambda _: 0.0,
    "randn_like": lambda _: 0.0,
    "normal": _argument("mean", 0.0),
    "normal_": _argument("mean", 0.0),
    "exponential_": lambda a: 1.0 / a.get("lambd", 1.0),
    "log_normal_": lambda a: math.exp(a.get("mean", 1.0) + a.get("std", 2.0) ** 2 / 2),
    "cauchy_": _argument("median", 0.0),  # no mean; the median is its centre
}

#: Float arguments that set the dropout rate of a fused kernel (scaled-dot-product
#: attention on GPUs, cuDNN/MIOpen RNNs), forward and backward alike.
_DROPOUT_RATE_ARGUMENTS = ("dropout_p", "dropout")

_RRELU = ("rrelu_with_noise", "rrelu_with_noise_", "rrelu_with_noise_functional", "rrelu_with_noise_backward")


class _ExpectedValueMode(TorchDispatchMode):
    def __init__(self, record: RandomOps) -> None:
        super().__init__()
        self.record = record
        self.handlers: dict[Any, Callable[..., Any] | None] = {}

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func not in self.handlers:
            self.handlers[func] = _handler(func)
        handler = self.handlers[func]
        if handler is None:
            return func(*args, **kwargs)
        return handler(self.record, func, args, kwargs)


def _handler(func: Any) -> Callable[..., Any] | None:
    name = func.overloadpacket.__name__
    if name in _EXPECTED_VALUES:
        return _at_expected_value
    if name == "native_dropout":
        return _native_dropout
    if name == "native_dropout_backward":
        return _native_dropout_backward
    if name in _RRELU:
        return _rrelu_at_mean_slope
    arguments = [argument.name for argument in func._schema.arguments]
    if any(rate in arguments for rate in _DROPOUT_RATE_ARGUMENTS) and _takes_data(func):
        return _without_dropout
    if _draws_random_numbers(func.overloadpacket):
        return _left_on
    return None


def _takes_data(func: Any) -> bool:
    """Whether the operation takes a tensor to compute on: a fused kernel applies its
    dropout to one, while an operation that only builds the random state (cuDNN's
    ``_cudnn_init_dropout_state``, which refuses a rate of 0) takes none."""
    return any(
        "Tensor" in str(argument.type) and not argument.kwarg_only for argument in func._schema.arguments
    )


def _draws_random_numbers(packet: Any) -> bool:
    """Whether some form of the operation takes a ``generator`` (``randint`` has one
    overload with it and one without)."""
    return any(
        any(argument.name == "generator" for argument in getattr(packet, overload)._schema.arguments)
        for overload in packet.overloads()
    )


def _label(func: Any) -> str:
    return f"aten.{func.overloadpacket.__name__}"


def _bind(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Arguments:
    """The operation's arguments by name, defaults included."""
    bound: Arguments = {}
    for position, argument in enumerate(func._schema.arguments):
        if position < len(args) and not argument.kwarg_only:
            bound[argument.name] = args[position]
        elif argument.name in kwargs:
            bound[argument.name] = kwargs[argument.name]
        elif argument.has_default_value():
            bound[argument.name] = argument.default_value
    return bound


def _with_argument(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], name: str, value: Any) -> Any:
    """Call ``func`` with one argument replaced."""
    for position, argument in enumerate(func._schema.arguments):
        if argument.name == name:
            if position < len(args) and not argument.kwarg_only:
                args = (*args[:position], value, *args[position + 1 :])
            else:
                kwargs = {**kwargs, name: value}
    return func(*args, **kwargs)


def _at_expected_value(record: RandomOps, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    arguments = _bind(func, args, kwargs)
    expected = _EXPECTED_VALUES[func.overloadpacket.__name__](arguments)
    if func.overloadpacket.__name__.endswith("_"):
        result = arguments["self"]  # an in-place draw: nothing to draw, only to fill
    else:
        result = func(*args, **kwargs)  # the right shape, dtype and device (or out=); values replaced below
    record.neutralised[_label(func)] += 1
    if isinstance(expected, torch.Tensor):
        return result.copy_(expected.expand_as(result))
    return result.fill_(expected)


def _native_dropout(record: RandomOps, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    arguments = _bind(func, args, kwargs)
    if arguments.get("train") is False or not arguments.get("p"):
        return func(*args, **kwargs)
    record.neutralised[_label(func)] += 1
    return _with_argument(func, args, kwargs, "train", False)  # (input, all-true mask)


def _native_dropout_backward(_record: RandomOps, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Autograd computed the scale 1/(1-p) from the rate it saw; the forward ran as the
    identity, so its gradient passes through unscaled."""
    return _with_argument(func, args, kwargs, "scale", 1.0)


def _rrelu_at_mean_slope(record: RandomOps, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """rrelu outside training uses the mean of its random slopes."""
    if _bind(func, args, kwargs).get("training") and not func.overloadpacket.__name__.endswith("backward"):
        record.neutralised[_label(func)] += 1
    return _with_argument(func, args, kwargs, "training", False)


def _without_dropout(record: RandomOps, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    arguments = _bind(func, args, kwargs)
    for rate in _DROPOUT_RATE_ARGUMENTS:
        if isinstance(arguments.get(rate), float) and arguments[rate] > 0:
            if "backward" not in func.overloadpacket.__name__:
                record.neutralised[_label(func)] += 1
            return _with_argument(func, args, kwargs, rate, 0.0)
    return func(*args, **kwargs)


def _left_on(record: RandomOps, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    record.left_on[_label(func)] += 1
    return func(*args, **kwargs)


# ------------------------------------------------------- the function-level mode


@contextlib.contextmanager
def random_calls_at_expected_value() -> Iterator[RandomOps]:
    """Within the block, the torch functions that draw random numbers run at their
    expected value, in eager and in ``torch.compile``-d code alike: dropout in every
    functional spelling (``nn.Dropout`` calls ``F.dropout``) runs as in eval mode,
    attention's ``dropout_p`` is 0, ``bernoulli``/``rand``/``randn``/``normal`` and their
    in-place forms give their mean (drop-path keeps ``p`` of every sample). Integer draws
    are left on and recorded. A function that draws inside another torch function not
    listed here (an RNN's ``dropout=``) is not reached. Calls are recorded only where
    they run eagerly: Dynamo would guard on the counts and recompile on every call."""
    record = RandomOps()
    with _ExpectedValueFunctionMode(record):
        yield record


#: Functions whose flag argument switches their randomness off: (name, position, off).
_OFF_SWITCHES: dict[Callable[..., Any], tuple[str, int, Any]] = {
    **{
        function: ("training", 2, False)
        for function in (F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout)
    },
    F.rrelu: ("training", 3, False),
    **{
        function: ("train", 2, False)
        for function in (
            torch.dropout, torch.dropout_, torch.alpha_dropout, torch.alpha_dropout_,
            torch.feature_dropout, torch.feature_dropout_, torch.feature_alpha_dropout, torch.feature_alpha_dropout_,
        )
    },
    F.scaled_dot_product_attention: ("dropout_p", 4, 0.0),
    F.multi_head_attention_forward: ("dropout_p", 10, 0.0),
}

#: Draws replaced by their mean: function -> (mean from the call, whether it fills in place).
_MEANS: dict[Callable[..., Any], tuple[Callable[[tuple[Any, ...], dict[str, Any]], Any], bool]] = {
    torch.Tensor.bernoulli_: (lambda a, k: _value(a, k, "p", 1, 0.5), True),
    torch.Tensor.bernoulli: (lambda a, k: _value(a, k, "p", 1, None), False),
    torch.bernoulli: (lambda a, k: _value(a, k, "p", 1, None), False),
    torch.rand: (lambda a, k: 0.5, False),
    torch.rand_like: (lambda a, k: 0.5, False),
    torch.randn: (lambda a, k: 0.0, False),
    torch.randn_like: (lambda a, k: 0.0, False),
    torch.normal: (lambda a, k: _value(a, k, "mean", 0, 0.0), False),
    torch.Tensor.uniform_: (lambda a, k: (_value(a, k, "from", 1, 0.0) + _value(a, k, "to", 2, 1.0)) / 2, True),
    torch.Tensor.normal_: (lambda a, k: _value(a, k, "mean", 1, 0.0), True),
    torch.Tensor.exponential_: (lambda a, k: 1.0 / _value(a, k, "lambd", 1, 1.0), True),
    torch.Tensor.cauchy_: (lambda a, k: _value(a, k, "median", 1, 0.0), True),
}

_INTEGER_DRAWS = (torch.randint, torch.randint_like, torch.randperm, torch.multinomial, torch.Tensor.random_)


def _value(args: tuple[Any, ...], kwargs: dict[str, Any], name: str, position: int, default: Any) -> Any:
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else default


def _function_label(func: Any) -> str:
    name = getattr(func, "__name__", str(func))
    if getattr(torch.Tensor, name, None) is func:
        return f"Tensor.{name}"
    if getattr(F, name, None) is func:
        return f"F.{name}"
    return f"torch.{name}"


class _ExpectedValueFunctionMode(TorchFunctionMode):
    def __init__(self, record: RandomOps) -> None:
        super().__init__()
        self.record = record

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func in _OFF_SWITCHES:
            return self._switched_off(func, args, kwargs)
        if func in _MEANS:
            return self._at_mean(func, args, kwargs)
        if func in _INTEGER_DRAWS:
            self._count(self.record.left_on, func)
        return func(*args, **kwargs)

    def _switched_off(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        name, position, off = _OFF_SWITCHES[func]
        if _value(args, kwargs, name, position, off) == off:
            return func(*args, **kwargs)
        self._count(self.record.neutralised, func)
        if name in kwargs or len(args) <= position:
            return func(*args, **{**kwargs, name: off})
        return func(*args[:position], off, *args[position + 1 :], **kwargs)

    def _at_mean(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        mean_of, in_place = _MEANS[func]
        mean = mean_of(args, kwargs)
        if mean is None:  # bernoulli(probs): the probabilities are the mean
            mean = args[0] if args else kwargs["input"]
        self._count(self.record.neutralised, func)
        result = args[0] if in_place else func(*args, **kwargs)  # the right shape, dtype and device
        if isinstance(mean, torch.Tensor):
            return result.copy_(mean.expand_as(result))
        return result.fill_(mean)

    def _count(self, counter: Counter[str], func: Any) -> None:
        if not torch.compiler.is_compiling():
            counter[_function_label(func)] += 1
