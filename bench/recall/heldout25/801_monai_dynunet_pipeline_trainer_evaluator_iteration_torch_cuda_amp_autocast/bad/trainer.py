"""Supervised trainer for DynUNet on the Medical Segmentation Decathlon (deep supervision, AMP)."""
from typing import Any, Dict, Tuple

import torch
from ignite.engine import Engine
from monai.engines import SupervisedTrainer
from monai.engines.utils import CommonKeys as Keys
from monai.engines.utils import IterationEvents
from torch.nn.parallel import DistributedDataParallel


def _clip(network, max_norm=12):
    params = network.module.parameters() if isinstance(network, DistributedDataParallel) else network.parameters()
    torch.nn.utils.clip_grad_norm_(params, max_norm)


class DynUNetTrainer(SupervisedTrainer):
    """Overrides one Ignite iteration: the deep-supervision heads are weighted 1, 1/2, 1/4, ..."""

    def _iteration(self, engine: Engine, batchdata: Dict[str, Any]):
        if batchdata is None:
            raise ValueError("Must provide batch data for current iteration.")
        batch = self.prepare_batch(batchdata, engine.state.device, engine.non_blocking)
        if len(batch) == 2:
            inputs, targets = batch
            args: Tuple = ()
            kwargs: Dict = {}
        else:
            inputs, targets, args, kwargs = batch
        engine.state.output = {Keys.IMAGE: inputs, Keys.LABEL: targets}

        def _forward_and_loss():
            preds = self.inferer(inputs, self.network, *args, **kwargs)
            if preds.dim() - targets.dim() == 1:
                preds = torch.unbind(preds, dim=1)
            engine.state.output[Keys.PRED] = preds
            engine.fire_event(IterationEvents.FORWARD_COMPLETED)
            engine.state.output[Keys.LOSS] = sum(
                0.5**level * self.loss_function(pred, targets) for level, pred in enumerate(preds)
            )
            engine.fire_event(IterationEvents.LOSS_COMPLETED)

        self.network.train()
        self.optimizer.zero_grad()
        if self.amp and self.scaler is not None:
            with torch.cuda.amp.autocast():  # expect: TCK301
                _forward_and_loss()
            self.scaler.scale(engine.state.output[Keys.LOSS]).backward()
            self.scaler.unscale_(self.optimizer)
            _clip(self.network)
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            _forward_and_loss()
            engine.state.output[Keys.LOSS].backward()
            engine.fire_event(IterationEvents.BACKWARD_COMPLETED)
            _clip(self.network)
            self.optimizer.step()
            engine.fire_event(IterationEvents.MODEL_COMPLETED)
        return engine.state.output
