from collections import OrderedDict

import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler, TensorDataset


class Experiment:
    def __init__(self, model, stages_config, distributed_params=None):
        self.model = model
        self.stages_config = stages_config
        self.distributed_params = distributed_params or {}

    def get_datasets(self, stage, n_train=512, n_valid=128):
        return OrderedDict(
            train=TensorDataset(torch.randn(n_train, 32), torch.randint(0, 4, (n_train,))),
            valid=TensorDataset(torch.randn(n_valid, 32), torch.randint(0, 4, (n_valid,))),
        )

    def get_loaders(self, stage):
        data_params = dict(self.stages_config[stage]["data_params"])
        batch_size = data_params.pop("batch_size")
        num_workers = data_params.pop("num_workers")
        distributed = self.distributed_params.get("rank", -1) > -1

        loaders = OrderedDict()
        for name, ds_ in self.get_datasets(stage=stage, **data_params).items():
            assert isinstance(ds_, Dataset)
            loader_params = {
                "dataset": ds_,
                "batch_size": batch_size,
                "num_workers": num_workers,
                "pin_memory": torch.cuda.is_available(),
            }
            if distributed:
                loader_params["sampler"] = DistributedSampler(dataset=loader_params["dataset"])
            loader_params["shuffle"] = name.startswith("train") and loader_params.get("sampler") is None
            loaders[name] = DataLoader(**loader_params)
        return loaders
