"""Train a 3D CNN on DeepRank's HDF5 feature grids (regression of a score, or classification)."""

import os

import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data as data_utils


class NeuralNet:
    def __init__(self, data_set, model, task="reg", cuda=False, ngpu=0, outdir="./"):
        self.data_set = data_set
        self.outdir = outdir

        self.cuda = cuda or ngpu > 0
        self.ngpu = ngpu if ngpu > 0 else int(self.cuda)

        # what the network learns: a regression target or class labels
        self.task = task
        if self.task == "reg":
            self.criterion = nn.MSELoss(reduction="sum")
            self._plot_scatter = self._plot_scatter_reg
        elif self.task == "class":
            self.criterion = nn.CrossEntropyLoss(reduction="sum")
            self._plot_scatter = self._plot_boxplot_class
            self.data_set.normalize_targets = False
        else:
            raise ValueError("Task %s not recognized: use 'reg' or 'class'" % self.task)

        self.net = model(self.data_set.input_shape)
        if self.ngpu > 1:
            self.net = nn.DataParallel(self.net, device_ids=list(range(self.ngpu))).cuda()
        elif self.cuda:
            self.net = self.net.cuda()

        self.optimizer = optim.SGD(self.net.parameters(), lr=0.005, momentum=0.9, weight_decay=0.001)

    def train(self, nepoch=50, train_batch_size=10, num_workers=1):
        loader = data_utils.DataLoader(self.data_set, batch_size=train_batch_size,
                                       shuffle=True, num_workers=num_workers)
        for epoch in range(nepoch):
            total = self._epoch(loader, train_model=True)
            print("epoch %d  loss %.4f" % (epoch, total))
        if not os.path.isdir(self.outdir):
            os.mkdir(self.outdir)
        torch.save(self.net.state_dict(), os.path.join(self.outdir, "model.pth"))

    def _epoch(self, data_loader, train_model):
        self.net.train(mode=train_model)
        running_loss = 0.0
        for inputs, targets in data_loader:
            inputs = inputs.float()
            targets = targets.long() if self.task == "class" else targets.float()
            if self.cuda:
                inputs, targets = inputs.cuda(non_blocking=True), targets.cuda(non_blocking=True)
            outputs = self.net(inputs)
            loss = self.criterion(outputs, targets)
            running_loss += loss.item()
            if train_model:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        return running_loss

    def _plot_scatter_reg(self, fname):
        pass

    def _plot_boxplot_class(self, fname):
        pass
