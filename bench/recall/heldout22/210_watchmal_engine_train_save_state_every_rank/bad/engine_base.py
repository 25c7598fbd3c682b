"""Training engine shared by the classification and regression tasks."""
from abc import ABC
from time import localtime, strftime, time

import numpy as np
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class BaseEngine(ABC):
    def __init__(self, model, rank, gpu, dump_path):
        self.epoch = 0
        self.iteration = 0
        self.best_validation_loss = 1.0e10
        self.dirpath = dump_path
        self.rank = rank
        self.model = model
        self.device = torch.device(gpu)
        if isinstance(self.model, DDP):
            self.is_distributed = True
            self.model_accs = self.model.module
            self.ngpus = torch.distributed.get_world_size()
        else:
            self.is_distributed = False
            self.model_accs = self.model
        self.data_loaders = {}
        self.criterion = torch.nn.CrossEntropyLoss()
        self.optimizer = None
        self.scheduler = None

    def configure_optimizers(self, lr):
        self.optimizer = torch.optim.Adam(self.model_accs.parameters(), lr=lr)

    def configure_data_loaders(self, datasets, batch_size, seed):
        for name, dataset in datasets.items():
            sampler = DistributedSampler(dataset, shuffle=(name == "train"), seed=seed) if self.is_distributed else None
            self.data_loaders[name] = DataLoader(dataset, batch_size=batch_size, sampler=sampler,
                                                 shuffle=(sampler is None and name == "train"))

    def get_synchronized_metrics(self, metric_dict):
        global_metric_dict = {}
        for name, array in metric_dict.items():
            tensor = torch.as_tensor(array, device=self.device)
            global_tensor = [torch.zeros_like(tensor) for _ in range(self.ngpus)]
            torch.distributed.all_gather(global_tensor, tensor)
            global_metric_dict[name] = torch.cat(global_tensor)
        return global_metric_dict

    def forward(self, train=True):
        with torch.set_grad_enabled(train):
            data = self.data.to(self.device)
            labels = self.labels.to(self.device)
            output = self.model(data)
            self.loss = self.criterion(output, labels)
            accuracy = (output.argmax(1) == labels).float().mean()
        return {"output": output, "loss": self.loss.detach(), "accuracy": accuracy}

    def backward(self):
        self.optimizer.zero_grad()
        self.loss.backward()
        self.optimizer.step()

    def train(self, epochs, report_interval, val_interval, num_val_batches, save_interval=None):
        if self.rank == 0:
            print(f"Training... Validation Interval: {val_interval}")
        self.model.train()
        self.iteration = 0
        self.best_validation_loss = 1.0e10
        val_iter = iter(self.data_loaders["validation"])

        for self.epoch in range(epochs):
            if self.rank == 0:
                print("Epoch", self.epoch + 1, "Starting @", strftime("%Y-%m-%d %H:%M:%S", localtime()))
            start_time = time()
            train_loader = self.data_loaders["train"]
            if self.is_distributed:
                train_loader.sampler.set_epoch(self.epoch)

            for step, (data, labels) in enumerate(train_loader):
                if self.iteration % val_interval == 0:
                    val_iter = self.validate(val_iter, num_val_batches)
                self.data, self.labels = data, labels
                res = self.forward(True)
                self.backward()
                self.iteration += 1
                if self.rank == 0 and self.iteration % report_interval == 0:
                    print(f"... Iteration {self.iteration} ... Epoch {self.epoch + 1} ... Step {step}/{len(train_loader)}"
                          f" ... Loss {res['loss'].item():1.3f} ... Accuracy {res['accuracy'].item():1.3f}"
                          f" ... Time {time() - start_time:1.1f}")

            if self.scheduler is not None:
                self.scheduler.step()

            if (save_interval is not None) and ((self.epoch + 1) % save_interval == 0):
                self.save_state(name=f"_epoch_{self.epoch + 1}")

    def validate(self, val_iter, num_val_batches):
        self.model.eval()
        losses, accuracies = [], []
        with torch.no_grad():
            for _ in range(num_val_batches):
                try:
                    data, labels = next(val_iter)
                except StopIteration:
                    val_iter = iter(self.data_loaders["validation"])
                    data, labels = next(val_iter)
                self.data, self.labels = data, labels
                res = self.forward(False)
                losses.append(res["loss"])
                accuracies.append(res["accuracy"])
        metrics = {"loss": torch.stack(losses).mean(), "accuracy": torch.stack(accuracies).mean()}
        if self.is_distributed:
            metrics = {k: v.mean() for k, v in self.get_synchronized_metrics(metrics).items()}
        if self.rank == 0:
            if metrics["loss"] < self.best_validation_loss:
                self.best_validation_loss = metrics["loss"].item()
                print(f"best validation loss so far!: {self.best_validation_loss}")
                self.save_state("BEST")
        self.model.train()
        return val_iter

    def save_state(self, name=""):
        filename = "{}{}{}{}".format(self.dirpath, str(self.model_accs._get_name()), name, ".pth")
        model_dict = self.model_accs.state_dict()
        torch.save({  # expect: TCK208
            "global_step": self.iteration,
            "optimizer": self.optimizer.state_dict(),
            "state_dict": model_dict,
        }, filename)
        print("Saved checkpoint as:", filename)
        return filename

    def restore_best_state(self):
        best_validation_path = "{}{}{}{}".format(self.dirpath, str(self.model_accs._get_name()), "BEST", ".pth")
        self.restore_state_from_file(best_validation_path)

    def restore_state_from_file(self, weight_file):
        with open(weight_file, "rb") as f:
            print("Restoring state from", weight_file)
            checkpoint = torch.load(f)
            self.model_accs.load_state_dict(checkpoint["state_dict"])
            if self.optimizer is not None:
                self.optimizer.load_state_dict(checkpoint["optimizer"])
            self.iteration = checkpoint["global_step"]
        print("Restoration complete.")
