import torch
import torch.distributed as dist
from torch import nn, optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from . import utils


class BaseTrainer:
    """Epoch loop shared by the autoencoder, sequence and end-to-end trainers."""

    def __init__(self, model, train_loss, eval_losses, train_dataset, eval_datasets, epochs,
                 batch_size=32, cuda=True, parallel=False, lr=1e-4, checkpoint_path=None, local_rank=0):
        self.model = model
        self.is_parallel = parallel
        self.local_rank = local_rank
        self.train_loss = train_loss
        self.eval_losses = nn.ModuleDict(eval_losses)
        self.train_dataset = train_dataset
        self.eval_datasets = eval_datasets
        self.epochs = epochs
        self.batch_size = batch_size
        self.cuda = cuda
        self.checkpoint_path = checkpoint_path
        if cuda:
            self.model.cuda(local_rank)
            self.train_loss.cuda(local_rank)
            self.eval_losses.cuda(local_rank)
        # --parallel: one process per GPU (torchrun), gradients all-reduced by DDP
        if parallel:
            self.parallel = DistributedDataParallel(model, device_ids=[local_rank] if cuda else None)
        else:
            self.parallel = model
        self.optimizer = optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
        self.sampler = DistributedSampler(train_dataset, shuffle=True) if parallel else None

    def _is_main(self):
        return not self.is_parallel or dist.get_rank() == 0

    def _to_device(self, batch):
        return {k: v.cuda(self.local_rank, non_blocking=True) for k, v in batch.items()} if self.cuda else batch

    def _train_epoch(self, epoch):
        if self.sampler is not None:
            self.sampler.set_epoch(epoch)
        loader = DataLoader(self.train_dataset, batch_size=self.batch_size,
                            shuffle=self.sampler is None, sampler=self.sampler)
        total = 0.0
        for idx, batch in enumerate(loader):
            total += self._train_batch(self._to_device(batch))
            if idx % 100 == 0 and self._is_main():
                print(f"[train][{epoch:03d}] batch {idx} loss {total / (idx + 1):.6f}")
        return total

    def _train_batch(self, batch):
        rebuilt, target = self._get_rebuilt_target(batch)
        self.optimizer.zero_grad()
        loss = self.train_loss(rebuilt, target)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _get_rebuilt_target(self, batch):
        raise NotImplementedError()

    @torch.no_grad()
    def _eval_dataset(self, name, dataset, epoch):
        loader = DataLoader(dataset, batch_size=self.batch_size)
        totals = {loss_name: 0.0 for loss_name in self.eval_losses}
        for batch in loader:
            rebuilt, target = self._get_rebuilt_target(self._to_device(batch))
            for loss_name, loss in self.eval_losses.items():
                totals[loss_name] += loss(rebuilt, target).item() * target.size(0)
        if self._is_main():
            print(f"[{name}][{epoch:03d}] " + " ".join(f"{k}={v / len(dataset):.6f}" for k, v in totals.items()))

    def train(self):
        last_epoch, state = utils.load_checkpoint(self.checkpoint_path)
        if state is not None:
            self.model.load_state_dict(state, strict=False)
        for epoch in range(last_epoch + 1, self.epochs):
            self.model.train()
            self._train_epoch(epoch)
            if self._is_main():
                utils.save_checkpoint(self.checkpoint_path, epoch, self.model.state_dict())
            if self.is_parallel:
                dist.barrier()
            self.model.eval()
            for name, dataset in self.eval_datasets.items():
                self._eval_dataset(name, dataset, epoch)
