import torch
from accelerate import Accelerator
from tqdm.auto import tqdm


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, train_loader, args):
        self.args = args
        self._accelerator = Accelerator(
            mixed_precision="fp16", gradient_accumulation_steps=args.gradient_accumulation_steps
        )
        self.model, self.optimizer, self.train_loader, self.lr_scheduler = self._accelerator.prepare(
            model, optimizer, train_loader, lr_scheduler
        )
        self._trn_loss_meter = AverageMeter()

    def train_one_epoch(self, epoch):
        self.model.train()
        progress = tqdm(self.train_loader, disable=not self._accelerator.is_local_main_process)
        for step, batch in enumerate(progress):
            with self._accelerator.accumulate(self.model):
                _, loss = self.model(**batch)
                self._accelerator.backward(loss)
                if self._accelerator.sync_gradients:
                    self._accelerator.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                self.optimizer.step()
                self.lr_scheduler.step()
                self.optimizer.zero_grad()
            self._trn_loss_meter.update(loss.item(), batch["labels"].size(0))
            progress.set_description(f"epoch {epoch} loss {self._trn_loss_meter.avg:.4f}")

    def fit(self):
        for epoch in range(self.args.epochs):
            self.train_one_epoch(epoch)
            self._accelerator.wait_for_everyone()
            if self._accelerator.is_main_process:
                unwrapped = self._accelerator.unwrap_model(self.model)
                torch.save(unwrapped.state_dict(), f"{self.args.output_dir}/model_epoch{epoch}.pt")
