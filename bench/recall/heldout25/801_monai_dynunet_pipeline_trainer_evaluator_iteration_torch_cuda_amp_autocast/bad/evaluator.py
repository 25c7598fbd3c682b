"""Validation engine for DynUNet: sliding-window inference with optional flip test-time augmentation."""
from typing import Any, Dict, Tuple

import torch
import torch.nn as nn
from ignite.engine import Engine
from monai.data import decollate_batch
from monai.engines import SupervisedEvaluator
from monai.engines.utils import CommonKeys as Keys
from monai.engines.utils import IterationEvents
from monai.networks.utils import eval_mode
from monai.transforms import AsDiscrete

FLIP_DIMS = [[2], [3], [4], (2, 3), (2, 4), (3, 4), (2, 3, 4)]


class DynUNetEvaluator(SupervisedEvaluator):
    def __init__(self, *args, num_classes: int, tta_val: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.num_classes = num_classes
        self.tta_val = tta_val
        self.post_pred = AsDiscrete(argmax=True, to_onehot=num_classes)
        self.post_label = AsDiscrete(to_onehot=num_classes)

    def _iteration(self, engine: Engine, batchdata: Dict[str, Any]) -> Dict[str, torch.Tensor]:
        if batchdata is None:
            raise ValueError("Must provide batch data for current iteration.")
        batch = self.prepare_batch(batchdata, engine.state.device, engine.non_blocking)
        if len(batch) == 2:
            inputs, targets = batch
            args: Tuple = ()
            kwargs: Dict = {}
        else:
            inputs, targets, args, kwargs = batch
        targets = targets.cpu()

        def _predict():
            probs = nn.functional.softmax(self.inferer(inputs, self.network, *args, **kwargs).cpu(), dim=1)
            if not self.tta_val:
                return probs
            for dims in FLIP_DIMS:
                flipped = self.inferer(torch.flip(inputs, dims=dims), self.network).cpu()
                probs += nn.functional.softmax(torch.flip(flipped, dims=dims), dim=1)
            return probs / (len(FLIP_DIMS) + 1)

        with eval_mode(self.network):
            if self.amp:
                with torch.cuda.amp.autocast():  # expect: TCK301
                    predictions = _predict()
            else:
                predictions = _predict()

        predictions = self.post_pred(decollate_batch(predictions)[0])
        labels = self.post_label(decollate_batch(targets)[0])
        engine.state.output = {Keys.IMAGE: inputs.cpu(), Keys.LABEL: labels.unsqueeze(0),
                               Keys.PRED: predictions.unsqueeze(0)}
        engine.fire_event(IterationEvents.FORWARD_COMPLETED)
        engine.fire_event(IterationEvents.MODEL_COMPLETED)
        return engine.state.output
