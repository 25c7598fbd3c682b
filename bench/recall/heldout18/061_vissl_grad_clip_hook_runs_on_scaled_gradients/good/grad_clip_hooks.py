from typing import Union

import torch.nn.utils as utils


class ClassyHook:
    """Base hook: one method per event of the train step; events a hook ignores are no-ops."""

    def _noop(self, task) -> None:
        pass

    on_forward = _noop
    on_loss_and_meter = _noop
    on_backward = _noop
    on_update = _noop


class GradClipHook(ClassyHook):
    """Clip the gradient norm on every backward pass (config.MODEL.GRAD_CLIP)."""

    def __init__(self, norm_type: Union[int, float, str], max_norm: Union[int, float]):
        super().__init__()
        self.norm_type = norm_type
        self.max_norm = max_norm

    def on_backward(self, task) -> None:
        if task.amp:
            # gradients are still multiplied by the loss scale: unscale before clipping
            task.amp_grad_scaler.unscale_(task.optimizer)
        utils.clip_grad_norm_(task.model.parameters(), max_norm=self.max_norm, norm_type=self.norm_type)
