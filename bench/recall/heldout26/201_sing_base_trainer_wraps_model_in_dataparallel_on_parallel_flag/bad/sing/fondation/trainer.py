import torch
from torch import nn, optim
from torch.utils.data import DataLoader

from . import utils


class BaseTrainer:
    """Epoch loop shared by the autoencoder, sequence and end-to-end trainers."""

    def __init__(self, model, train_loss, eval_losses, train_dataset, eval_datasets, epochs,
                 batch_size=32, cuda=True, parallel=False, lr=1e-4, checkpoint_path=None):
        self.model = model
        # every forward goes through self.parallel; --parallel spreads it over all visible GPUs
        self.parallel = nn.DataParallel(model) if parallel else model  # expect: TCK204
        self.is_parallel = parallel
        self.train_loss = train_loss
        self.eval_losses = nn.ModuleDict(eval_losses)
        self.train_dataset = train_dataset
        self.eval_datasets = eval_datasets
        self.epochs = epochs
        self.batch_size = batch_size
        self.cuda = cuda
        self.checkpoint_path = checkpoint_path
        self.optimizer = optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
        if cuda:
            self.model.cuda()
            self.train_loss.cuda()
            self.eval_losses.cuda()

    def _to_device(self, batch):
        return {k: v.cuda(non_blocking=True) for k, v in batch.items()} if self.cuda else batch

    def _train_epoch(self, epoch):
        loader = DataLoader(self.train_dataset, batch_size=self.batch_size, shuffle=True)
        total = 0.0
        for idx, batch in enumerate(loader):
            total += self._train_batch(self._to_device(batch))
            if idx % 100 == 0:
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
        print(f"[{name}][{epoch:03d}] " + " ".join(f"{k}={v / len(dataset):.6f}" for k, v in totals.items()))

    def train(self):
        last_epoch, state = utils.load_checkpoint(self.checkpoint_path)
        if state is not None:
            self.model.load_state_dict(state, strict=False)
        for epoch in range(last_epoch + 1, self.epochs):
            self.model.train()
            self._train_epoch(epoch)
            utils.save_checkpoint(self.checkpoint_path, epoch, self.model.state_dict())
            self.model.eval()
            for name, dataset in self.eval_datasets.items():
                self._eval_dataset(name, dataset, epoch)
