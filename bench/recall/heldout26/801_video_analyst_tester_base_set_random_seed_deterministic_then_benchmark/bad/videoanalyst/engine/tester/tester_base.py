# -*- coding: utf-8 -*
"""Base class of the trackers' benchmark testers (VOT, GOT-10k, ...)."""
import os
import random
from copy import deepcopy
from typing import Dict

import numpy as np
import torch

from videoanalyst.pipeline.pipeline_base import PipelineBase
from videoanalyst.utils import Registry

TRACK_TESTERS = Registry("TRACK_TESTERS")
VOS_TESTERS = Registry("VOS_TESTERS")
TASK_TESTERS = dict(track=TRACK_TESTERS, vos=VOS_TESTERS)


class TesterBase:
    """Runs a tracking pipeline over a benchmark; subclasses implement `test()`."""

    default_hyper_params = dict(exp_name="", exp_save="", random_seed=12345)

    def __init__(self, pipeline: PipelineBase):
        self._hyper_params = deepcopy(self.default_hyper_params)
        self._state = dict()
        self._pipeline = pipeline

    def get_hps(self) -> dict:
        return self._hyper_params

    def set_hps(self, hps: dict) -> None:
        for key in hps:
            if key not in self._hyper_params:
                raise KeyError(key)
            self._hyper_params[key] = hps[key]

    def set_pipeline(self, pipeline: PipelineBase):
        self._pipeline = pipeline

    def update_params(self):
        """Hook for subclasses to refresh derived settings after set_hps()."""

    def test(self) -> Dict:
        """Run the benchmark; the result holds "main_performance" for hyper-parameter search."""

    def set_random_seed(self):
        seed = self._hyper_params["random_seed"]
        random.seed(seed)
        os.environ["PYTHONHASHSEED"] = str(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        torch.cuda.manual_seed(seed)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = True  # expect: TCK501
