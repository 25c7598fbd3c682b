"""What the nn.Module rules share: whether the walk is inside a torch module class (the
context's ``is_module_class``, or the project index for bases of other files), which method
of it and what that method calls its instance. The plain-container analysis of TCK601/TCK602
is in ``_plain_containers``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import decorator_names
from torchcheck.lint.project import Condition
from torchcheck.lint.rule import Rule

PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})


def self_attribute(expression: cst.BaseExpression, self_name: str | None) -> str | None:
    """``"x"`` for ``self.x`` (with the method's own name for the instance), else None."""
    if (
        self_name is not None
        and type(expression) is cst.Attribute  # exact type: cheaper than isinstance on libcst's ABCs
        and type(expression.value) is cst.Name
        and expression.value.value == self_name
    ):
        return expression.attr.value
    return None


class ModuleClassRule(Rule):
    """Base of the TCK6xx rules: knows whether the walk is inside a torch ``nn.Module``, and
    which method of it (the context knows the class).

    Subclasses that implement ``visit_ClassDef``/``visit_FunctionDef``/``leave_FunctionDef``
    must call ``super()`` first (visit) or last (leave). Each target of an assignment
    reaches :meth:`assigned`, unless a subclass overrides ``visit_Assign``/``visit_AnnAssign``.
    """

    # Whether a class counts as a module when its bases come from other files (its findings
    # then wait for the project index).
    follows_project_bases: ClassVar[bool] = False

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # the torch module classes of the file -> the condition set by a base of another file
        self._module_classes: dict[cst.ClassDef, Condition | None] = {}
        self._functions: list[tuple[cst.ClassDef | None, cst.FunctionDef]] = []  # open defs, with their class
        self._self_names: dict[cst.FunctionDef, str | None] = {}

    @property
    def in_torch_module(self) -> bool:
        """Inside the innermost class, and that class derives from a torch ``nn.Module``."""
        return self.context.current_class in self._module_classes

    @property
    def method(self) -> cst.FunctionDef | None:
        """The method of the innermost class that encloses the current node (nested functions included)."""
        owner = self.context.current_class
        return next((function for cls, function in self._functions if cls is owner), None) if owner is not None else None

    @property
    def self_name(self) -> str | None:
        """The name of the instance in the current method (``self``), or None for static/class methods."""
        method = self.method
        if method is None:
            return None
        if method not in self._self_names:  # asked on every call in a method: answered once per method
            params = (*method.params.posonly_params, *method.params.params)
            static = decorator_names(method) & {"staticmethod", "classmethod"}
            self._self_names[method] = params[0].name.value if params and not static else None
        return self._self_names[method]

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self.context.is_module_class(node):
            self._module_classes[node] = None
        elif self.follows_project_bases and (condition := self.context.module_class_condition(node)) is not None:
            self._module_classes[node] = condition

    def report(self, node: cst.CSTNode, message: str | None = None, **options: Any) -> None:
        """A finding inside a class whose module-ness another file decides stands only if it is one."""
        owner = self.context.binder.enclosing(node, cst.ClassDef) if self.context.current_class is None else self.context.current_class
        condition = self._module_classes.get(owner)  # type: ignore[arg-type]
        if condition is not None:
            options["conditions"] = (*options.get("conditions", ()), condition)
        super().report(node, message, **options)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append((self.context.current_class, node))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.assigned(node, target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.assigned(node, node.target, node.value)

    def assigned(self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """Hook: ``target = value`` (each target of an assignment; an annotated one with a value)."""
