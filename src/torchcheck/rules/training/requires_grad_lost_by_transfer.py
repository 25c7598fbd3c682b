from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import Kind, has_star_kwargs, keyword_argument, method_call
from torchcheck.lint.edits import keyword, with_keyword_appended
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.rules.devices.transfer_after_construction import is_device_expression

# Factories that accept device=, dtype= and requires_grad= (torch.from_numpy takes none).
_FACTORIES = (torch_api.TENSOR_FACTORIES | torch_api.TENSOR_LIKE_FACTORIES) - {"torch.from_numpy"}
_PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
_CAST_METHODS = {"double": "float64", "half": "float16", "bfloat16": "bfloat16"}
_TRANSFER_METHODS = frozenset({"to", "cuda", *_CAST_METHODS})
_FLOAT32 = frozenset({"torch.float32", "torch.float"})
_DROPPED_KEYWORDS = frozenset({"non_blocking", "copy"})  # meaningless when constructing in place

# (keyword, value) pairs to move into the factory; None where no fix can be built.
_Moves = list[tuple[str, cst.BaseExpression]] | None


def _is_true(argument: cst.Arg | None) -> bool:
    return argument is not None and isinstance(argument.value, cst.Name) and argument.value.value == "True"


def _is_false(argument: cst.Arg | None) -> bool:
    return argument is not None and isinstance(argument.value, cst.Name) and argument.value.value == "False"


class RequiresGradLostByTransfer(Rule):
    """
    ## What it does
    Checks for a tensor created with `requires_grad=True` (or made a parameter) and then
    moved or cast in the same expression: `torch.randn(3, requires_grad=True).to(device)`,
    `.cuda()`, `.double()`, `.half()`, `torch.zeros(3).requires_grad_().cuda()`,
    `nn.Parameter(w).cuda()`.

    ## Why is this bad?
    The leaf tensor that requires grad is the one the factory built, on the CPU. `.to()` /
    `.cuda()` / `.double()` return a *copy* computed from it - a non-leaf tensor. The
    variable holds the copy, whose `.grad` stays `None` after `backward()` (PyTorch only
    warns when `.grad` is read), and an optimizer given the copy raises "can't optimize a
    non-leaf Tensor"; `nn.Parameter(...).cuda()` is no longer a parameter, so the module
    never registers it. Create the tensor where and as it will be used: pass `device=` and
    `dtype=` to the factory.

    ## Example
    ```python
    import torch

    device = torch.device("cuda")
    weights = torch.randn(10, 10, requires_grad=True).to(device)
    scale = torch.ones(1, requires_grad=True).double()
    ```

    Use instead:
    ```python
    import torch

    device = torch.device("cuda")
    weights = torch.randn(10, 10, requires_grad=True, device=device)
    scale = torch.ones(1, requires_grad=True, dtype=torch.float64)
    ```

    ## Fix safety
    The fix moves the target device and dtype into the factory's `device=`/`dtype=`
    arguments (dropping `non_blocking=`/`copy=`, which mean nothing at construction). It is
    safe: the tensor gets the same values, device and dtype, and is now the leaf that
    accumulates gradients - which is what `requires_grad=True` asked for. It is not offered
    when the factory passes `**kwargs` or already sets the keyword, when `.to()` copies the
    device and dtype of another tensor, or for `nn.Parameter(...)`.

    ## References
    - [Autograd mechanics: leaf tensors and `requires_grad`](https://pytorch.org/docs/stable/notes/autograd.html#setting-requires-grad)
    - [`torch.Tensor.is_leaf`](https://pytorch.org/docs/stable/generated/torch.Tensor.is_leaf.html)
    - [Tensor creation ops](https://pytorch.org/docs/stable/torch.html#creation-ops)
    """

    code = "TCK108"
    name = "requires-grad-lost-by-transfer"
    message = "Moving or casting a tensor that requires grad returns a non-leaf copy; its `.grad` stays `None`"
    fix_title = "Pass `device=`/`dtype=` to the factory"
    fix_safety = FixSafety.SAFE
    required_text = ("requires_grad", "Parameter")

    VALID = (
        Valid(
            """
import torch
w = torch.randn(3, 3, requires_grad=True, device="cuda")
b = torch.zeros(3, device=device).requires_grad_()
p = torch.nn.Parameter(torch.randn(3).to(device))
"""
        ),
        Valid(
            """
import torch
x = torch.randn(3, requires_grad=False).to(device)
y = torch.randn(3).to(device).requires_grad_()
z = torch.randn(3, requires_grad=True).float()
s = torch.randn(3, requires_grad=True).to(torch.float32)
"""
        ),
        Valid(
            """
import torch
leaf = torch.randn(3, requires_grad=True)
moved = leaf.to(device)
model = model.to(device)
"""
        ),
        Valid(
            """
import torch
def build(requires_grad):
    return torch.randn(3, requires_grad=requires_grad).to(device)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
w = torch.randn(10, 10, requires_grad=True).to(device)  # TCK108
b = torch.zeros(10, requires_grad=True).cuda()  # TCK108
""",
            expected_replacement="""
import torch
w = torch.randn(10, 10, requires_grad=True, device=device)  # TCK108
b = torch.zeros(10, requires_grad=True, device="cuda")  # TCK108
""",
        ),
        Invalid(
            """
import torch as T
scale = T.ones(1, requires_grad=True).double()  # TCK108
x = T.rand(4, requires_grad=True).to("cuda:1", T.float16, non_blocking=True)  # TCK108
y = T.empty(4).requires_grad_().cuda(0)  # TCK108
""",
            expected_replacement="""
import torch as T
scale = T.ones(1, requires_grad=True, dtype=T.float64)  # TCK108
x = T.rand(4, requires_grad=True, device="cuda:1", dtype=T.float16)  # TCK108
y = T.empty(4, device="cuda:0").requires_grad_()  # TCK108
""",
        ),
        Invalid(
            """
import torch
import torch.nn as nn
class Scale(nn.Module):
    def __init__(self, reference):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1)).cuda()  # TCK108
        self.beta = torch.zeros(1, device="cpu", requires_grad=True).to(device)  # TCK108
        self.gamma = torch.zeros(1, requires_grad=True).to(reference)  # TCK108
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        receiver_method = method_call(node)
        if receiver_method is None or receiver_method[1] not in _TRANSFER_METHODS:
            return
        source, method = receiver_method
        if not isinstance(source, cst.Call):
            return
        factory, wrapper = self._leaf_factory(source)
        if factory is None:
            if self.context.call_name(source) in _PARAMETERS and not _is_false(keyword_argument(source, "requires_grad")):
                if self._moves(node, method, None) != []:
                    self.report(node)
            return
        moves = self._moves(node, method, factory)
        if moves == []:
            return  # not a transfer (`.to()`), or a no-op cast (`.to(torch.float32)`)
        new_factory = _with_keywords(factory, moves) if moves is not None else None
        if new_factory is None:
            self.report(node)
        elif wrapper is None:
            self.report(node, replacement=new_factory)
        else:
            func = wrapper.func
            assert isinstance(func, cst.Attribute)
            self.report(node, replacement=wrapper.with_changes(func=func.with_changes(value=new_factory)))

    def _leaf_factory(self, source: cst.Call) -> tuple[cst.Call | None, cst.Call | None]:
        """The factory that builds the leaf, and the ``.requires_grad_()`` call around it if any."""
        if self.context.call_name(source) in _FACTORIES:
            return (source, None) if _is_true(keyword_argument(source, "requires_grad")) else (None, None)
        found = method_call(source)
        if found is None or found[1] != "requires_grad_" or not isinstance(found[0], cst.Call):
            return None, None
        if source.args and not _is_true(source.args[0]):
            return None, None
        inner = found[0]
        if self.context.call_name(inner) not in _FACTORIES or keyword_argument(inner, "requires_grad") is not None:
            return None, None
        return inner, source

    def _moves(self, call: cst.Call, method: str, factory: cst.Call | None) -> _Moves:
        """What the transfer changes, as factory keywords; [] when it changes nothing."""
        if method in _CAST_METHODS:
            if call.args:
                return None
            torch_name = self._torch_name(factory)
            if torch_name is None:
                return None
            return [("dtype", cst.Attribute(value=cst.Name(torch_name), attr=cst.Name(_CAST_METHODS[method])))]
        if method == "cuda":
            return self._cuda_moves(call)
        return self._to_moves(call, factory)

    @staticmethod
    def _cuda_moves(call: cst.Call) -> _Moves:
        device: cst.BaseExpression = cst.SimpleString('"cuda"')
        for argument in call.args:
            if argument.keyword is not None and argument.keyword.value in _DROPPED_KEYWORDS:
                continue
            if argument.star or (argument.keyword is not None and argument.keyword.value != "device"):
                return None
            device = argument.value
            if isinstance(device, cst.Integer):
                device = cst.SimpleString(f'"cuda:{device.value}"')
        return [("device", device)]

    def _to_moves(self, call: cst.Call, factory: cst.Call | None) -> _Moves:
        if not call.args:
            return []
        moves: list[tuple[str, cst.BaseExpression]] = []
        for argument in call.args:
            if argument.star:
                return None
            if argument.keyword is not None:
                keyword = argument.keyword.value
                if keyword in _DROPPED_KEYWORDS:
                    continue
                if keyword not in ("device", "dtype"):
                    return None
                moves.append((keyword, argument.value))
                continue
            kind = self.context.kind_of(argument.value)
            if kind is Kind.DTYPE:
                moves.append(("dtype", argument.value))
            elif is_device_expression(argument.value, kind):
                moves.append(("device", argument.value))
            else:
                return None  # `.to(other_tensor)` or something unknown
        if (
            len(moves) == 1
            and moves[0][0] == "dtype"
            and self.context.qualified_name(moves[0][1]) in _FLOAT32
            and (factory is None or keyword_argument(factory, "dtype") is None)
        ):
            return []  # already float32: `.to` returns the leaf itself
        return moves

    def _torch_name(self, factory: cst.Call | None) -> str | None:
        """The local name of the ``torch`` module used by the factory (``torch``, ``T``)."""
        if factory is None:
            return None
        expression = factory.func
        while isinstance(expression, cst.Attribute):
            expression = expression.value
        if isinstance(expression, cst.Name) and self.context.qualified_name(expression) == "torch":
            return expression.value
        return None


def _with_keywords(factory: cst.Call, moves: list[tuple[str, cst.BaseExpression]]) -> cst.Call | None:
    if has_star_kwargs(factory) or not moves:
        return None
    names = [name for name, _ in moves]
    if len(set(names)) != len(names) or any(keyword_argument(factory, name) for name in names):
        return None
    for name, value in moves:
        factory = with_keyword_appended(factory, keyword(name, value))
    return factory
