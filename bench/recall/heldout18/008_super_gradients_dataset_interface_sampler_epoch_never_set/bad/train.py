import torch.distributed as dist
import torchvision

from dataset_interface import DatasetInterface
from sg_model import MultiGPUMode, SgModel


def main():
    dist.init_process_group("nccl")
    model = SgModel("resnet18_cifar", multi_gpu=MultiGPUMode.DISTRIBUTED_DATA_PARALLEL)
    model.connect_dataset_interface(DatasetInterface(batch_size=64))
    model.build_model(torchvision.models.resnet18(num_classes=10))
    model.train(max_epochs=100)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
