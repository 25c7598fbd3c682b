# -*- coding: utf-8 -*
"""VOT tester: splits the videos over GPUs, one worker process per device."""
import math

import numpy as np
import torch
import torch.multiprocessing as mp
from loguru import logger
from yacs.config import CfgNode

from ..tester_base import TRACK_TESTERS, TesterBase


@TRACK_TESTERS.register
class VOTTester(TesterBase):
    extra_hyper_params = dict(
        device_num=1,
        data_root=CfgNode(dict(VOT2018="datasets/VOT/vot2018")),
        dataset_names=["VOT2018"],
        video_name_list=[],
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._hyper_params.update(self.extra_hyper_params)

    def test(self):
        for dataset_name in self._hyper_params["dataset_names"]:
            self.dataset_name = dataset_name
            self.run_tracker()
        return dict(main_performance=self._state.get("eao", 0.0))

    def run_tracker(self):
        num_gpu = self._hyper_params["device_num"]
        all_devs = [torch.device("cuda:%d" % i) for i in range(num_gpu)]
        records = self._hyper_params["video_name_list"]
        if num_gpu == 1:
            self.worker(records, all_devs[0])
            return
        per_proc = math.ceil(len(records) / num_gpu)
        result_queue, speed_queue = mp.Queue(500), mp.Queue(500)
        procs = []
        for i in range(num_gpu):
            split = records[i * per_proc:(i + 1) * per_proc]
            proc = mp.Process(target=self.worker, args=(split, all_devs[i], result_queue, speed_queue))
            proc.start()
            procs.append(proc)
        speeds = [speed_queue.get() for _ in records]
        for proc in procs:
            proc.join()
        logger.info("Mean Speed: {:.2f} FPS".format(float(np.mean(speeds))))

    def worker(self, records, dev, result_queue=None, speed_queue=None):
        self.set_random_seed()
        tracker = self._pipeline
        tracker.set_device(dev)
        for v_id, video in enumerate(records):
            lost, speed = self.track_single_video(tracker, video, v_id=v_id)
            if result_queue is not None:
                result_queue.put_nowait(lost)
            if speed_queue is not None:
                speed_queue.put_nowait(speed)

    def track_single_video(self, tracker, video, v_id=0):
        raise NotImplementedError
