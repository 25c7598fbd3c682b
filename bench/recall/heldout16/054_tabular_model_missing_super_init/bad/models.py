from typing import Callable, Dict, Generic, List, Optional, Tuple, TypeVar, Union

import torch
import torch.nn as nn


class _Lambda(nn.Module):
    def __init__(self, fn: Callable):  # expect: TCK603
        self.fn = fn

    def forward(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


MainModule = TypeVar("MainModule", bound=nn.Module)


class SimpleModel(nn.Module, Generic[MainModule]):
    def __init__(  # expect: TCK603
        self,
        input: Dict[str, Tuple],
        main: MainModule,
        main_input_ndim: int,
        output: Optional[Dict[str, nn.Module]] = None,
    ) -> None:
        assert main_input_ndim in (2, 3)
        input_modules = {}
        input_args: Dict[str, Tuple[str, ...]] = {}
        for name, spec in input.items():
            input_modules[name] = spec[0]
            input_args[name] = spec[1:]
        self.input = nn.ModuleDict(input_modules)
        self._input_args = input_args
        self.main = main
        self._main_input_ndim = main_input_ndim
        self.output = None if output is None else nn.ModuleDict(output)

    def forward(self, **kwargs):
        results = []
        for name in self.input:
            module = self.input[name]
            results.append(module(**{arg: kwargs[arg] for arg in self._input_args[name]}))
        x = torch.cat([t.flatten(self._main_input_ndim - 1, -1) for t in results], dim=1)
        x = self.main(x)
        return x if self.output is None else {k: v(x) for k, v in self.output.items()}


def make_simple_model(input: Dict[str, Union[Callable, nn.Module, Tuple]], main: nn.Module,
                      main_input_ndim: int, output: Optional[Dict[str, nn.Module]] = None) -> SimpleModel:
    specs = {}
    for name, spec in input.items():
        if not isinstance(spec, tuple):
            spec = (spec, name)
        module, *args = spec
        if not isinstance(module, nn.Module):
            module = _Lambda(module)
        specs[name] = (module, *args)
    return SimpleModel(specs, main, main_input_ndim, output)


def mlp(d_in: int, d_hidden: int, n_layers: int, d_out: int) -> nn.Sequential:
    layers: List[nn.Module] = []
    for i in range(n_layers):
        layers += [nn.Linear(d_in if i == 0 else d_hidden, d_hidden), nn.ReLU(), nn.Dropout(0.1)]
    layers.append(nn.Linear(d_hidden, d_out))
    return nn.Sequential(*layers)
