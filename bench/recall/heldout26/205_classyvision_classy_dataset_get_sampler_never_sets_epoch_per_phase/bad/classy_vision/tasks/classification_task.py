import torch

from classy_vision.generic.distributed_util import init_distributed_data_parallel_model, is_distributed_training_run


class ClassificationTask:
    def __init__(self, datasets, model, loss, optimizer, num_epochs):
        self.datasets = datasets
        self.base_model = model
        self.distributed_model = None
        self.loss = loss
        self.optimizer = optimizer
        self.num_epochs = num_epochs
        self.phases = []
        self.phase_idx = -1
        self.train_phase_idx = -1
        self.dataloaders = {}
        self.data_iterator = None

    @property
    def model(self):
        return self.distributed_model if self.distributed_model is not None else self.base_model

    @property
    def phase_type(self):
        return "train" if self.phases[self.phase_idx]["train"] else "test"

    def _build_phases(self):
        phases = []
        for _ in range(self.num_epochs):
            phases += [{"train": True}, {"train": False}]
        return phases

    def build_dataloader(self, split, num_workers, pin_memory, **kwargs):
        return self.datasets[split].iterator(num_workers=num_workers, pin_memory=pin_memory, **kwargs)

    def build_dataloaders(self, num_workers, pin_memory, **kwargs):
        return {split: self.build_dataloader(split, num_workers, pin_memory, **kwargs) for split in self.datasets}

    def prepare(self, num_dataloader_workers=0, pin_memory=False, use_gpu=False):
        self.phases = self._build_phases()
        self.dataloaders = self.build_dataloaders(num_workers=num_dataloader_workers, pin_memory=pin_memory)
        self.num_workers, self.pin_memory = num_dataloader_workers, pin_memory
        if use_gpu:
            self.loss = self.loss.cuda()
            self.base_model = self.base_model.cuda()
        if is_distributed_training_run():
            self.distributed_model = init_distributed_data_parallel_model(self.base_model)
        self.optimizer.init_pytorch_optimizer(self.model)

    def _recreate_data_loader_from_dataset(self, phase_type=None):
        phase_type = phase_type or self.phase_type
        self.dataloaders[phase_type] = self.build_dataloader(
            phase_type, num_workers=self.num_workers, pin_memory=self.pin_memory,
            current_phase_id=self.train_phase_idx if phase_type == "train" else 0,
        )

    def advance_phase(self):
        self.phase_idx += 1
        if self.phases[self.phase_idx]["train"]:
            self.train_phase_idx += 1
        # a new DataLoader (and a new sampler) for every phase
        self._recreate_data_loader_from_dataset()
        self.data_iterator = iter(self.dataloaders[self.phase_type])
        self.model.train(self.phases[self.phase_idx]["train"])
        if self.phase_type == "train":
            self.optimizer.update_schedule_on_epoch(self.train_phase_idx / self.num_epochs)

    def train_step(self, use_gpu):
        sample = next(self.data_iterator)
        inputs, target = sample["input"], sample["target"]
        if use_gpu:
            inputs, target = inputs.cuda(non_blocking=True), target.cuda(non_blocking=True)
        with torch.set_grad_enabled(self.phase_type == "train"):
            output = self.model(inputs)
            local_loss = self.loss(output, target)
        if self.phase_type == "train":
            self.optimizer.backward(local_loss)
            self.optimizer.update_schedule_and_step()
        return local_loss.detach()
