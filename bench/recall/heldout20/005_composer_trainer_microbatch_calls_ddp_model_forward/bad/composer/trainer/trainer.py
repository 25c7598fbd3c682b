import logging

import torch

from composer.core.state import State
from composer.trainer.ddp import _ddp_sync_context, _prepare_ddp_module

log = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, train_dataloader, max_epochs, optimizers=None, schedulers=None,
                 precision="fp32", grad_accum=1, grad_clip_norm=None, find_unused_parameters=False,
                 device="cuda"):
        if optimizers is None:
            optimizers = [torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)]
        self.state = State(model=model, max_epochs=max_epochs, train_dataloader=train_dataloader,
                           optimizers=optimizers, schedulers=schedulers, precision=precision)
        self.grad_accum = grad_accum
        self._grad_clip_norm = grad_clip_norm
        self._device = torch.device(device)

        self._original_model = self.state.model
        self.state.model = self.state.model.to(self._device)
        self.state.model = _prepare_ddp_module(self.state.model, find_unused_parameters)
        self.state.scaler = torch.cuda.amp.GradScaler(enabled=precision == "amp")

    def fit(self):
        self.state.model.train()
        while self.state.epoch < self.state.max_epochs:
            for batch in self.state.train_dataloader:
                batch = [t.to(self._device, non_blocking=True) for t in batch]
                self.state.batch = batch
                total_loss = self._train_batch(self._microbatches(batch))
                for scheduler in self.state.schedulers:
                    scheduler.step()
                if self.state.step % 50 == 0:
                    log.info("epoch %d step %d loss %.4f", self.state.epoch, self.state.step, total_loss.item())
                self.state.step += 1
            self.state.epoch += 1

    def _microbatches(self, batch):
        inputs, targets = batch
        return list(zip(inputs.chunk(self.grad_accum), targets.chunk(self.grad_accum)))

    def _train_batch(self, microbatches):
        for optimizer in self.state.optimizers:
            optimizer.zero_grad()

        total_loss = torch.zeros(size=(1,), device=self._device)
        current_batch_size = sum(len(mb[0]) for mb in microbatches)
        for microbatch_idx, self.state.batch in enumerate(microbatches):
            is_final_microbatch = microbatch_idx + 1 == len(microbatches)
            self._train_microbatch(current_batch_size, total_loss, is_final_microbatch)

        for optimizer in self.state.optimizers:
            self.state.scaler.unscale_(optimizer)
        if self._grad_clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(self.state.model.parameters(), max_norm=self._grad_clip_norm)
        for optimizer in self.state.optimizers:
            self.state.scaler.step(optimizer)
        self.state.scaler.update()
        return total_loss

    def _train_microbatch(self, current_batch_size, total_loss, is_final_microbatch):
        microbatch_num_samples = len(self.state.batch[0])
        with _ddp_sync_context(self.state, is_final_microbatch):
            # forward pass
            with self.state.precision_context:
                self.state.outputs = self.state.model.forward(self.state.batch)  # expect: TCK105

            # loss
            with self.state.precision_context:
                self.state.loss = self._original_model.loss(self.state.outputs, self.state.batch)

            self.state.loss = self.state.loss * (microbatch_num_samples / current_batch_size)
            total_loss += self.state.loss.detach().clone()

            # backward
            self.state.scaler.scale(self.state.loss).backward()
