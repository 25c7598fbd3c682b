import argparse
import json
import os

import numpy as np
import torch
import torch.nn.functional as F
import torchnet as tnt
from torch.autograd import Variable
from torch.nn.parallel import data_parallel
from torchnet.engine import Engine
from tqdm import tqdm

from data import create_dataset
from resnet import resnet
from utils import at_loss, cast, distillation

parser = argparse.ArgumentParser(description="Wide residual networks with attention transfer")
parser.add_argument("--depth", default=16, type=int)
parser.add_argument("--width", default=1, type=float)
parser.add_argument("--dataset", default="CIFAR10", type=str)
parser.add_argument("--teacher_id", default="", type=str)
parser.add_argument("--batch_size", default=128, type=int)
parser.add_argument("--lr", default=0.1, type=float)
parser.add_argument("--epochs", default=200, type=int)
parser.add_argument("--weight_decay", default=5e-4, type=float)
parser.add_argument("--temperature", default=4, type=float)
parser.add_argument("--alpha", default=0, type=float)
parser.add_argument("--beta", default=0, type=float)
parser.add_argument("--ngpu", default=1, type=int)
parser.add_argument("--save", default="logs/run", type=str)


def main():
    opt = parser.parse_args()
    num_classes = 10 if opt.dataset == "CIFAR10" else 100
    train_loader = create_dataset(opt, train=True)
    test_loader = create_dataset(opt, train=False)

    f_s, params_s, stats_s = resnet(opt.depth, opt.width, num_classes)
    if opt.teacher_id != "":
        with open(os.path.join("logs", opt.teacher_id, "log.txt")) as ff:
            line = ff.readline()
            info = json.loads(line[line.find("json_stats") + 12:])
        f_t = resnet(info["depth"], info["width"], num_classes)[0]
        teacher = torch.load(os.path.join("logs", opt.teacher_id, "model.pt7"))
        params = {"student." + k: v for k, v in params_s.items()}
        params.update({"teacher." + k: Variable(v) for k, v in teacher["params"].items()})
        stats = {"student." + k: v for k, v in stats_s.items()}
        stats.update({"teacher." + k: v for k, v in teacher["stats"].items()})

        def f(inputs, params, stats, mode):
            y_s, g_s = f_s(inputs, params, stats, mode, "student.")
            y_t, g_t = f_t(inputs, params, stats, False, "teacher.")
            return y_s, y_t, [at_loss(x, y) for x, y in zip(g_s, g_t)]
    else:
        f, params, stats = f_s, params_s, stats_s

    optimizable = [v for v in params.values() if v.requires_grad]
    optimizer = torch.optim.SGD(optimizable, opt.lr, 0.9, weight_decay=opt.weight_decay)

    meter_loss = tnt.meter.AverageValueMeter()
    classacc = tnt.meter.ClassErrorMeter(accuracy=True)
    meters_at = [tnt.meter.AverageValueMeter() for _ in range(3)]
    os.makedirs(opt.save, exist_ok=True)

    def h(sample):
        inputs = Variable(cast(sample[0], "float"))
        targets = Variable(cast(sample[1], "long"))
        if opt.teacher_id != "":
            y_s, y_t, loss_groups = data_parallel(f, inputs, params, stats, sample[2], np.arange(opt.ngpu))
            loss_groups = [v.sum() for v in loss_groups]
            [m.add(v.item()) for m, v in zip(meters_at, loss_groups)]
            loss = distillation(y_s, y_t, targets, opt.temperature, opt.alpha) + opt.beta * sum(loss_groups)
            return loss, y_s
        y = data_parallel(f, inputs, params, stats, sample[2], np.arange(opt.ngpu))[0]
        return F.cross_entropy(y, targets), y

    def on_sample(state):
        state["sample"].append(state["train"])

    def on_forward(state):
        classacc.add(state["output"].data, torch.LongTensor(state["sample"][1]))
        meter_loss.add(state["loss"].item())

    def on_start_epoch(state):
        classacc.reset()
        meter_loss.reset()
        for m in meters_at:
            m.reset()
        state["iterator"] = tqdm(train_loader)

    def on_end_epoch(state):
        train_loss = meter_loss.value()
        train_acc = classacc.value()
        meter_loss.reset()
        classacc.reset()
        engine.test(h, test_loader)
        record = {
            "train_loss": train_loss[0],
            "train_acc": train_acc[0],
            "test_loss": meter_loss.value()[0],
            "test_acc": classacc.value()[0],
            "epoch": state["epoch"],
            "at_losses": [m.value() for m in meters_at],
        }
        with open(os.path.join(opt.save, "log.txt"), "a") as fh:
            fh.write("json_stats: " + json.dumps(record) + "\n")
        print(record)

    engine = Engine()
    engine.hooks["on_sample"] = on_sample
    engine.hooks["on_forward"] = on_forward
    engine.hooks["on_start_epoch"] = on_start_epoch
    engine.hooks["on_end_epoch"] = on_end_epoch
    engine.train(h, train_loader, opt.epochs, optimizer)


if __name__ == "__main__":
    main()
