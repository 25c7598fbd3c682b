import torch
import torch.nn as nn
import torch.optim as optim
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torchvision
from torchvision import datasets, transforms

FLAGS = {"batch_size": 32, "num_workers": 8, "learning_rate": 0.02, "momentum": 0.5, "num_epochs": 5, "seed": 1234}


def map_fn(index, flags):
    torch.manual_seed(flags["seed"])
    device = xm.xla_device()
    transform = transforms.Compose([transforms.Resize((224, 224)), transforms.Grayscale(3), transforms.ToTensor()])
    train_dataset = datasets.FashionMNIST("/tmp/fashionmnist", train=True, download=True, transform=transform)
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_dataset, num_replicas=xm.xrt_world_size(), rank=xm.get_ordinal(), shuffle=True)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=flags["batch_size"], sampler=train_sampler, num_workers=flags["num_workers"], drop_last=True)

    net = torchvision.models.alexnet(num_classes=10).to(device).train()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=flags["learning_rate"], momentum=flags["momentum"])

    for epoch in range(flags["num_epochs"]):
        train_sampler.set_epoch(epoch)
        para_train_loader = pl.ParallelLoader(train_loader, [device]).per_device_loader(device)
        for batch_num, (data, targets) in enumerate(para_train_loader):
            output = net(data)
            loss = loss_fn(output, targets)
            optimizer.zero_grad()
            loss.backward()
            xm.optimizer_step(optimizer)
        xm.master_print(f"epoch {epoch} done")


xmp.spawn(map_fn, args=(FLAGS,), nprocs=8, start_method="fork")
