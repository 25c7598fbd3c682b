import torch


class DynamicModule(torch.nn.Module):
    """A module whose architecture may grow with each experience of the stream."""

    def adaptation(self, dataset):
        """Adapt the module (add units, heads, ...) to the data of the new experience."""


class MultiTaskModule:
    """Mixin for modules whose forward also takes one task label per sample.

    The default `forward` splits the mini-batch by task and calls `forward_single_task`.
    """

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, task_labels: torch.Tensor) -> torch.Tensor:
        out = None
        for task in torch.unique(task_labels):
            task_mask = task_labels == task
            out_task = self.forward_single_task(x[task_mask], task.item())
            if out is None:
                out = torch.empty(x.shape[0], *out_task.shape[1:], device=out_task.device)
            out[task_mask] = out_task
        return out

    def forward_single_task(self, x: torch.Tensor, task_label: int) -> torch.Tensor:
        raise NotImplementedError


class IncrementalClassifier(DynamicModule):
    """Linear head that gains output units when unseen classes appear."""

    def __init__(self, in_features, initial_out_features=2):
        super().__init__()
        self.classifier = torch.nn.Linear(in_features, initial_out_features)

    @torch.no_grad()
    def adaptation(self, dataset):
        in_features = self.classifier.in_features
        old_n = self.classifier.out_features
        new_n = max(old_n, max(dataset.targets) + 1)
        if old_n == new_n:
            return
        old_w, old_b = self.classifier.weight, self.classifier.bias
        self.classifier = torch.nn.Linear(in_features, new_n)
        self.classifier.weight[:old_n] = old_w
        self.classifier.bias[:old_n] = old_b

    def forward(self, x, **kwargs):
        return self.classifier(x)


class MultiHeadClassifier(MultiTaskModule, DynamicModule):
    """One incremental head per task label."""

    def __init__(self, in_features, initial_out_features=2):
        super().__init__()
        self.in_features = in_features
        self.starting_out_features = initial_out_features
        self.classifiers = torch.nn.ModuleDict()
        self.classifiers["0"] = IncrementalClassifier(self.in_features)

    def adaptation(self, dataset):
        for tid in set(dataset.targets_task_labels):
            if str(tid) not in self.classifiers:
                head = IncrementalClassifier(self.in_features, self.starting_out_features)
                head.adaptation(dataset)
                self.classifiers[str(tid)] = head

    def forward_single_task(self, x, task_label):
        return self.classifiers[str(task_label)](x)
