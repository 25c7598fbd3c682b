import logging
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.utils.data as data
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data.distributed import DistributedSampler
import torchvision.utils as tvu

from ema import EMAHelper
from model import Model, noise_estimation_loss


def get_beta_schedule(beta_start, beta_end, num_diffusion_timesteps):
    return np.linspace(beta_start, beta_end, num_diffusion_timesteps, dtype=np.float64)


class Diffusion(object):
    def __init__(self, args, config, device=None):
        self.args = args
        self.config = config
        if device is None:
            device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
        self.device = device

        betas = get_beta_schedule(
            beta_start=config.diffusion.beta_start,
            beta_end=config.diffusion.beta_end,
            num_diffusion_timesteps=config.diffusion.num_diffusion_timesteps,
        )
        self.betas = torch.from_numpy(betas).float().to(self.device)
        self.num_timesteps = self.betas.shape[0]

    def train(self):
        args, config = self.args, self.config
        dataset = args.dataset
        rank = dist.get_rank()
        world_size = dist.get_world_size()
        train_sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
        train_loader = data.DataLoader(
            dataset,
            batch_size=config.training.batch_size // world_size,
            sampler=train_sampler,
            num_workers=config.data.num_workers,
        )
        model = Model(config)

        model = model.to(self.device)
        model = DDP(model, device_ids=[self.device.index])

        optimizer = torch.optim.Adam(model.parameters(), lr=config.optim.lr, eps=config.optim.eps)

        if self.config.model.ema:
            ema_helper = EMAHelper(mu=self.config.model.ema_rate)
            ema_helper.register(model)
        else:
            ema_helper = None

        start_epoch, step = 0, 0
        if self.args.resume_training:
            states = torch.load(os.path.join(self.args.log_path, "ckpt.pth"), map_location=self.device)
            model.load_state_dict(states[0])
            optimizer.load_state_dict(states[1])
            start_epoch = states[2]
            step = states[3]
            if self.config.model.ema:
                ema_helper.load_state_dict(states[4])

        for epoch in range(start_epoch, self.config.training.n_epochs):
            train_sampler.set_epoch(epoch)
            for i, (x, y) in enumerate(train_loader):
                n = x.size(0)
                model.train()
                step += 1

                x = x.to(self.device)
                x = 2 * x - 1.0
                e = torch.randn_like(x)
                b = self.betas

                # antithetic sampling
                t = torch.randint(low=0, high=self.num_timesteps, size=(n // 2 + 1,), device=self.device)
                t = torch.cat([t, self.num_timesteps - t - 1], dim=0)[:n]
                loss = noise_estimation_loss(model, x, t, e, b)

                if step % 100 == 0 and rank == 0:
                    logging.info(f"step: {step}, loss: {loss.item()}")

                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.optim.grad_clip)
                optimizer.step()

                if self.config.model.ema:
                    ema_helper.update(model)

                if rank == 0 and (step % self.config.training.snapshot_freq == 0 or step == 1):
                    states = [model.state_dict(), optimizer.state_dict(), epoch, step]
                    if self.config.model.ema:
                        states.append(ema_helper.state_dict())
                    torch.save(states, os.path.join(self.args.log_path, "ckpt_{}.pth".format(step)))
                    torch.save(states, os.path.join(self.args.log_path, "ckpt.pth"))

    def sample(self):
        model = Model(self.config)

        if not self.args.use_pretrained:
            states = torch.load(os.path.join(self.args.log_path, "ckpt.pth"), map_location=self.device)
            model = model.to(self.device)
            model = torch.nn.DataParallel(model)
            model.load_state_dict(states[0], strict=True)

            if self.config.model.ema:
                ema_helper = EMAHelper(mu=self.config.model.ema_rate)
                ema_helper.register(model)
                ema_helper.load_state_dict(states[-1])
                ema_helper.ema(model)
        else:
            ckpt = os.path.join(self.args.exp, "pretrained", "ema_cifar10.ckpt")
            model.load_state_dict(torch.load(ckpt, map_location=self.device))
            model.to(self.device)
            model = torch.nn.DataParallel(model)

        model.eval()
        self.sample_fid(model)

    def sample_fid(self, model):
        config = self.config
        img_id = 0
        with torch.no_grad():
            for _ in range(config.sampling.n_rounds):
                n = config.sampling.batch_size
                x = torch.randn(n, config.data.channels, config.data.image_size, config.data.image_size,
                                device=self.device)
                x = self.sample_image(x, model)
                x = (x + 1.0) / 2.0
                for k in range(n):
                    tvu.save_image(x[k], os.path.join(self.args.image_folder, f"{img_id}.png"))
                    img_id += 1

    def sample_image(self, x, model):
        b = self.betas
        alphas = (1 - b).cumprod(dim=0)
        for i in reversed(range(0, self.num_timesteps, self.config.sampling.skip)):
            t = torch.full((x.size(0),), i, device=self.device, dtype=torch.long)
            a_t = alphas[i]
            a_prev = alphas[i - self.config.sampling.skip] if i >= self.config.sampling.skip else torch.ones_like(a_t)
            et = model(x, t.float())
            x0 = (x - et * (1 - a_t).sqrt()) / a_t.sqrt()
            x = a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * et
        return x
