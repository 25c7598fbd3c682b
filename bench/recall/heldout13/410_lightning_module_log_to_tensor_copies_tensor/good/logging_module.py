import numbers
from collections import defaultdict
from typing import Union

import torch
from torch import nn


class LoggingModule(nn.Module):
    """Minimal LightningModule-like base: keeps per-step logged metrics."""

    def __init__(self):
        super().__init__()
        self._logged = defaultdict(list)

    @property
    def device(self):
        return next(self.parameters()).device

    def __to_tensor(self, value: Union[torch.Tensor, numbers.Number], name: str) -> torch.Tensor:
        value = (
            value.clone().detach().to(self.device)
            if isinstance(value, torch.Tensor)
            else torch.tensor(value, device=self.device)
        )
        if torch.numel(value) != 1:
            raise ValueError(f"`self.log({name}, {value})` was called, but the tensor must have a single element.")
        return value.squeeze()

    def log(self, name: str, value) -> None:
        value = self.__to_tensor(value, name)
        self._logged[name].append(value.detach())

    def epoch_means(self):
        return {k: torch.stack(v).mean().item() for k, v in self._logged.items()}
