import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchnet as tnt
from torchnet.engine import Engine
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from tqdm import tqdm


class Booster(nn.Module):
    """Light net trained together with a booster net that shares its lower layers."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.shared = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.light = nn.Sequential(nn.Flatten(), nn.Linear(32 * 16 * 16, num_classes))
        self.booster = nn.Sequential(nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                     nn.Flatten(), nn.Linear(64, num_classes))

    def forward(self, x):
        h = self.shared(x)
        return self.light(h), self.booster(h)


def get_iterator(train, batch_size):
    ds = datasets.CIFAR10("data", train=train, download=True, transform=transforms.ToTensor())
    return DataLoader(ds, batch_size=batch_size, shuffle=train, num_workers=4)


def main(opt):
    model = Booster()
    optimizer = torch.optim.SGD(model.parameters(), lr=opt.lr, momentum=0.9)
    meter_loss = tnt.meter.AverageValueMeter()
    classacc = tnt.meter.ClassErrorMeter(accuracy=True)

    def h(sample):
        inputs, targets, training = sample
        model.train(training)
        light_logits, booster_logits = model(inputs)
        hint = F.mse_loss(light_logits, booster_logits.detach())
        loss = F.cross_entropy(light_logits, targets) + F.cross_entropy(booster_logits, targets) + opt.lambda_hint * hint
        return loss, light_logits

    def on_sample(state):
        state["sample"].append(state["train"])

    def on_forward(state):
        classacc.add(state["output"].data, state["sample"][1])
        meter_loss.add(state["loss"].data[0])  # expect: TCK115

    def on_start_epoch(state):
        classacc.reset()
        meter_loss.reset()
        state["iterator"] = tqdm(state["iterator"])

    def on_end_epoch(state):
        print("[Epoch %d] train loss %.4f acc %.2f" % (state["epoch"], meter_loss.value()[0], classacc.value()[0]))
        classacc.reset()
        meter_loss.reset()
        engine.test(h, get_iterator(False, opt.batch_size))
        print("[Epoch %d] test loss %.4f acc %.2f" % (state["epoch"], meter_loss.value()[0], classacc.value()[0]))

    engine = Engine()
    engine.hooks["on_sample"] = on_sample
    engine.hooks["on_forward"] = on_forward
    engine.hooks["on_start_epoch"] = on_start_epoch
    engine.hooks["on_end_epoch"] = on_end_epoch
    engine.train(h, get_iterator(True, opt.batch_size), opt.epochs, optimizer)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--lambda_hint", type=float, default=1.0)
    main(parser.parse_args())
