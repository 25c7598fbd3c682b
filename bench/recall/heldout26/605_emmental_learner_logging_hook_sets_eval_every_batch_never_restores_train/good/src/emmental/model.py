import torch
import torch.nn as nn

from emmental.meta import Meta


class EmmentalModel(nn.Module):
    """Multi-task model: a shared dict of modules, one flow, loss and output head per task."""

    def __init__(self, name, tasks=None):
        super().__init__()
        self.name = name
        self.module_pool = nn.ModuleDict()
        self.task_flows = dict()
        self.loss_funcs = dict()
        self.output_funcs = dict()
        self.scorers = dict()
        for task in tasks or []:
            self._add_task(task)

    def _add_task(self, task):
        for key, module in task.module_pool.items():
            if key not in self.module_pool:
                self.module_pool[key] = module
        self.task_flows[task.name] = task.task_flow
        self.loss_funcs[task.name] = task.loss_func
        self.output_funcs[task.name] = task.output_func
        self.scorers[task.name] = task.scorer

    def forward(self, X_dict, task_names):
        immediate_output = {"_input_": X_dict}
        for task_name in task_names:
            for action in self.task_flows[task_name]:
                if action["name"] in immediate_output:
                    continue
                inputs = [immediate_output[name][index] for name, index in action["inputs"]]
                output = self.module_pool[action["module"]](*inputs)
                immediate_output[action["name"]] = output if isinstance(output, tuple) else (output,)
        return immediate_output

    def calculate_losses(self, X_dict, Y_dict, task_names, data_names, label_names, split):
        loss_dict = dict()
        count_dict = dict()
        immediate_output = self.forward(X_dict, task_names)
        for task_name, label_name in zip(task_names, label_names):
            Y = Y_dict[label_name]
            active = Y.detach() != Meta.config["learner_config"]["ignore_index"]
            if active.any():
                identifier = "/".join([task_name, data_names[0], split, "loss"])
                count_dict[identifier] = int(active.sum().item())
                loss_dict[identifier] = self.loss_funcs[task_name](immediate_output, Y, active)
        return loss_dict, count_dict

    @torch.no_grad()
    def score(self, dataloaders):
        metric_score_dict = dict()
        for dataloader in dataloaders:
            golds, probs = [], []
            for X_dict, Y_dict in dataloader:
                output = self.forward(X_dict, [dataloader.task_name])
                probs.append(self.output_funcs[dataloader.task_name](output).cpu())
                golds.append(Y_dict[dataloader.label_name].cpu())
            metrics = self.scorers[dataloader.task_name].score(torch.cat(golds), torch.cat(probs))
            for metric_name, metric_value in metrics.items():
                key = "/".join([dataloader.task_name, dataloader.data_name, dataloader.split, metric_name])
                metric_score_dict[key] = metric_value
        return metric_score_dict
