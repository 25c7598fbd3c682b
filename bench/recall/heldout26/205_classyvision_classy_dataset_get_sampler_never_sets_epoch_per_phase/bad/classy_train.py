"""Launch with torchrun: one process per GPU; ClassyTrainer alternates train and test phases."""
import os

import torch
import torch.distributed as dist
import torchvision

from classy_vision.dataset.synthetic_image_dataset import SyntheticImageDataset
from classy_vision.optim.classy_optimizer import ClassyOptimizer
from classy_vision.tasks.classification_task import ClassificationTask
from classy_vision.trainer.classy_trainer import ClassyTrainer


def main():
    use_gpu = torch.cuda.is_available()
    if "LOCAL_RANK" in os.environ:
        dist.init_process_group("nccl" if use_gpu else "gloo")
        if use_gpu:
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    config = {"batchsize_per_replica": 32, "use_shuffle": True, "crop_size": 224, "num_classes": 1000}
    datasets = {
        "train": SyntheticImageDataset.from_config({**config, "split": "train", "num_samples": 50000}),
        "test": SyntheticImageDataset.from_config({**config, "split": "test", "num_samples": 5000, "use_shuffle": False}),
    }
    task = ClassificationTask(datasets, torchvision.models.resnet50(), torch.nn.CrossEntropyLoss(),
                              ClassyOptimizer(lr=0.1), num_epochs=90)
    ClassyTrainer(use_gpu=use_gpu).train(task)


if __name__ == "__main__":
    main()
