import torch
import torch.nn.functional as F
from torch.utils.data import DistributedSampler

from callbacks import OptimizerCallback
from experiment import Experiment


class RunnerState:
    def __init__(self):
        self.stage_epoch = 0
        self.loader_name = None
        self.need_backward = False
        self.loss = None


class Runner:
    def __init__(self, model, optimizer):
        self.model = model
        self.state = RunnerState()
        self.callbacks = [OptimizerCallback(optimizer)]

    def _run_batch(self, batch):
        features, targets = batch
        logits = self.model(features)
        self.state.loss = F.cross_entropy(logits, targets)
        for cb in self.callbacks:
            cb.on_batch_end(self.state)

    def _run_loader(self, loader):
        for batch in loader:
            self._run_batch(batch)

    def _run_epoch(self, loaders):
        for loader_name, loader in loaders.items():
            self.state.loader_name = loader_name
            self.state.need_backward = loader_name.startswith("train")
            self.model.train(self.state.need_backward)
            if isinstance(loader.sampler, DistributedSampler):
                loader.sampler.set_epoch(self.state.stage_epoch)
            with torch.set_grad_enabled(self.state.need_backward):
                self._run_loader(loader)

    def run_stage(self, experiment, stage, num_epochs):
        loaders = experiment.get_loaders(stage)
        for epoch in range(num_epochs):
            self.state.stage_epoch = epoch
            self._run_epoch(loaders)


if __name__ == "__main__":
    model = torch.nn.Linear(32, 4)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    config = {"stage1": {"data_params": {"batch_size": 32, "num_workers": 2}}}
    experiment = Experiment(model, config, distributed_params={"rank": 0})
    Runner(model, optimizer).run_stage(experiment, "stage1", num_epochs=10)
