import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from trainer import LTRTrainer


class DiMPNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature_extractor = nn.Sequential(nn.Conv2d(3, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
                                               nn.Conv2d(64, 128, 3, 2, 1), nn.ReLU())
        self.classifier = nn.Conv2d(128, 1, 3, padding=1)

    def forward(self, template, search):
        z = self.feature_extractor(template).mean(dim=(2, 3), keepdim=True)
        x = self.feature_extractor(search)
        return self.classifier(x * z)


class DiMPActor:
    def __init__(self, net, objective):
        self.net = net
        self.objective = objective

    def __call__(self, template, search, label):
        scores = self.net(template, search)
        loss = self.objective(scores, label)
        return loss, {"Loss/total": loss.item()}


class Settings:
    batch_size = 32
    num_epochs = 50


def run(settings):
    data = TensorDataset(torch.randn(1024, 3, 128, 128), torch.randn(1024, 3, 256, 256), torch.rand(1024, 1, 64, 64))
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    loader_train = DataLoader(data, batch_size=settings.batch_size, sampler=DistributedSampler(data, shuffle=True),
                              drop_last=True)

    net = DiMPNet().cuda()
    # one process per GPU
    net = DDP(net, device_ids=[local_rank])

    actor = DiMPActor(net=net, objective=nn.MSELoss())
    optimizer = optim.Adam([{"params": actor.net.module.classifier.parameters(), "lr": 5e-4},
                            {"params": actor.net.module.feature_extractor.parameters()}], lr=2e-4)
    lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=15, gamma=0.2)
    trainer = LTRTrainer(actor, loader_train, optimizer, lr_scheduler)
    trainer.train(settings.num_epochs)


if __name__ == "__main__":
    run(Settings())
