import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from multigpu import MultiGPU
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
    multi_gpu = torch.cuda.device_count() > 1
    batch_size = 32
    num_epochs = 50


def run(settings):
    data = TensorDataset(torch.randn(1024, 3, 128, 128), torch.randn(1024, 3, 256, 256), torch.rand(1024, 1, 64, 64))
    loader_train = DataLoader(data, batch_size=settings.batch_size, shuffle=True, drop_last=True)

    net = DiMPNet()
    # Wrap the network for multi GPU training
    if settings.multi_gpu:
        net = MultiGPU(net, dim=1)  # expect: TCK204
    net = net.cuda()

    actor = DiMPActor(net=net, objective=nn.MSELoss())
    optimizer = optim.Adam([{"params": actor.net.classifier.parameters(), "lr": 5e-4},
                            {"params": actor.net.feature_extractor.parameters()}], lr=2e-4)
    lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=15, gamma=0.2)
    trainer = LTRTrainer(actor, loader_train, optimizer, lr_scheduler)
    trainer.train(settings.num_epochs)


if __name__ == "__main__":
    run(Settings())
