from typing import List, Optional, Tuple

import torch
from torch import Tensor, nn


class OutcomeTransform(nn.Module):
    def forward(self, Y: Tensor, Yvar: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        raise NotImplementedError

    def untransform(self, Y: Tensor, Yvar: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        raise NotImplementedError


class Bilog(OutcomeTransform):
    """Bilog transform: sign(Y) * log(|Y| + 1), useful for targets with large magnitudes."""

    def __init__(self, outputs: Optional[List[int]] = None) -> None:
        super().__init__()
        self._outputs = outputs

    def _select(self, Y: Tensor, Y_new: Tensor) -> Tensor:
        if self._outputs is None:
            return Y_new
        return torch.stack([Y_new[..., i] if i in self._outputs else Y[..., i] for i in range(Y.size(-1))], dim=-1)

    def forward(self, Y: Tensor, Yvar: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        Y_tf = Y.sign() * Y.abs().log1p()
        if Yvar is not None:
            raise NotImplementedError("Bilog does not yet support transforming observation noise")
        return self._select(Y, Y_tf), Yvar

    def untransform(self, Y: Tensor, Yvar: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        Y_utf = Y.sign() * Y.abs().expm1()
        if Yvar is not None:
            raise NotImplementedError("Bilog does not yet support transforming observation noise")
        return self._select(Y, Y_utf), Yvar
