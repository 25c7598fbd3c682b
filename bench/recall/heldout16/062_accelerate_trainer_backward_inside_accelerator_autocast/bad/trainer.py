from pathlib import Path

import torch
from accelerate import Accelerator
from torch.optim import Adam
from torch.utils.data import DataLoader
from torchvision import transforms as T
from torchvision.datasets import ImageFolder
from tqdm.auto import tqdm


def cycle(dl):
    while True:
        for data, _ in dl:
            yield data


class Trainer(object):
    def __init__(self, diffusion_model, folder, train_batch_size=16, gradient_accumulate_every=2,
                 train_lr=8e-5, train_num_steps=100000, adam_betas=(0.9, 0.99), amp=True,
                 save_every=1000, results_folder="./results"):
        self.accelerator = Accelerator(mixed_precision="fp16" if amp else "no")
        self.model = diffusion_model
        self.gradient_accumulate_every = gradient_accumulate_every
        self.train_num_steps = train_num_steps
        self.save_every = save_every
        tfm = T.Compose([T.Resize(64), T.CenterCrop(64), T.ToTensor()])
        dl = DataLoader(ImageFolder(folder, tfm), batch_size=train_batch_size, shuffle=True,
                        pin_memory=True, num_workers=4)
        self.opt = Adam(diffusion_model.parameters(), lr=train_lr, betas=adam_betas)
        self.model, self.opt, dl = self.accelerator.prepare(self.model, self.opt, dl)
        self.dl = cycle(dl)
        self.results_folder = Path(results_folder)
        self.results_folder.mkdir(exist_ok=True)
        self.step = 0

    def save(self, milestone):
        if not self.accelerator.is_local_main_process:
            return
        data = {
            "step": self.step,
            "model": self.accelerator.get_state_dict(self.model),
            "opt": self.opt.state_dict(),
        }
        torch.save(data, str(self.results_folder / f"model-{milestone}.pt"))

    def train(self):
        accelerator = self.accelerator
        device = accelerator.device
        with tqdm(initial=self.step, total=self.train_num_steps, disable=not accelerator.is_main_process) as pbar:
            while self.step < self.train_num_steps:
                for _ in range(self.gradient_accumulate_every):
                    data = next(self.dl).to(device)
                    with self.accelerator.autocast():
                        loss = self.model(data)
                        self.accelerator.backward(loss / self.gradient_accumulate_every)  # expect: TCK302

                pbar.set_description(f"loss: {loss.item():.4f}")
                accelerator.wait_for_everyone()
                accelerator.clip_grad_norm_(self.model.parameters(), 1.0)
                self.opt.step()
                self.opt.zero_grad()
                self.step += 1
                if self.step % self.save_every == 0:
                    self.save(self.step // self.save_every)
                pbar.update(1)
