import torch
from torch.distributed.fsdp import fully_shard


class FullFinetuneRecipeDistributed:
    def __init__(self, model, loss_fn, optimizer_cls, clip_grad_norm, logger):
        self._model = model
        for layer in self._model.layers:
            fully_shard(layer)
        fully_shard(self._model)
        self._optimizer = optimizer_cls(self._model.parameters(), lr=2e-5)
        self._loss_fn = loss_fn
        self._clip_grad_norm = clip_grad_norm
        self._metric_logger = logger

    def train(self, loader):
        for step, (tokens, labels) in enumerate(loader):
            loss = self._loss_fn(self._model(tokens), labels)
            loss.backward()
            grad_norm = None
            if self._clip_grad_norm is not None:
                grad_norm = torch.nn.utils.clip_grad_norm_(
                    self._model.parameters(),
                    max_norm=float(self._clip_grad_norm),
                ).full_tensor()
            self._optimizer.step()
            self._optimizer.zero_grad(set_to_none=True)
            log_dict = {"loss": loss.item()}
            if grad_norm is not None:
                log_dict["grad_norm"] = grad_norm.item()
            self._metric_logger.log_dict(log_dict, step=step)
