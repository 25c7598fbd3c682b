import csv
import logging
import math
import os

import torch.cuda.amp as amp
import torch.nn as nn
import torch.utils.data
import torchvision.utils as vutils
from tqdm import tqdm

import srgan_pytorch.models as models
from srgan_pytorch.dataset import CustomTestDataset, CustomTrainDataset
from srgan_pytorch.loss import VGGLoss
from srgan_pytorch.models.discriminator import discriminator
from srgan_pytorch.utils.common import init_torch_seeds, save_checkpoint, weights_init
from srgan_pytorch.utils.device import select_device
from srgan_pytorch.utils.estimate import test_psnr

logger = logging.getLogger(__name__)


def train_psnr(epoch: int,
               total_epoch: int,
               total_iters: int,
               dataloader: torch.utils.data.DataLoader,
               model: nn.Module,
               pixel_criterion: nn.MSELoss,
               optimizer: torch.optim.Adam,
               scaler: amp.GradScaler,
               device: torch.device):
    """One epoch of the PSNR-oriented (MSE only) pre-training of the generator, in mixed precision."""
    model.train()
    progress_bar = tqdm(enumerate(dataloader), total=len(dataloader))
    for i, (input, target) in progress_bar:
        lr = input.to(device)
        hr = target.to(device)

        with amp.autocast():
            sr = model(lr)
            loss = pixel_criterion(sr, hr)

        # backward on the scaled loss; the scaler unscales before stepping and skips steps with inf/NaN
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TCK102
        scaler.update()

        progress_bar.set_description(f"[{epoch + 1}/{total_epoch}][{i + 1}/{len(dataloader)}] "
                                     f"MSE Loss: {loss.item():.6f}")

        iters = i + epoch * len(dataloader) + 1
        if iters % 1000 == 0:
            vutils.save_image(hr, os.path.join("run", "hr", f"SRResNet_{iters}.bmp"))
            vutils.save_image(sr.detach(), os.path.join("run", "sr", f"SRResNet_{iters}.bmp"))

        if iters == int(total_iters):
            break


def train_gan(epoch: int,
              total_epoch: int,
              total_iters: int,
              dataloader: torch.utils.data.DataLoader,
              discriminator: nn.Module,
              generator: nn.Module,
              pixel_criterion: nn.MSELoss,
              perceptual_criterion: VGGLoss,
              adversarial_criterion: nn.BCELoss,
              discriminator_optimizer: torch.optim.Adam,
              generator_optimizer: torch.optim.Adam,
              discriminator_scheduler: torch.optim.lr_scheduler.StepLR,
              generator_scheduler: torch.optim.lr_scheduler.StepLR,
              device: torch.device):
    generator.train()
    discriminator.train()
    progress_bar = tqdm(enumerate(dataloader), total=len(dataloader))
    for i, (input, target) in progress_bar:
        lr = input.to(device)
        hr = target.to(device)
        batch_size = lr.size(0)
        real_label = torch.full((batch_size, 1), 1, dtype=lr.dtype, device=device)
        fake_label = torch.full((batch_size, 1), 0, dtype=lr.dtype, device=device)

        # (1) discriminator step
        discriminator.zero_grad()
        sr = generator(lr)
        output = discriminator(hr)
        errD_real = adversarial_criterion(output, real_label)
        output = discriminator(sr.detach())
        errD_fake = adversarial_criterion(output, fake_label)
        errD = errD_real + errD_fake
        errD.backward()
        discriminator_optimizer.step()

        # (2) generator step: pixel + perceptual + adversarial loss
        generator.zero_grad()
        output = discriminator(sr)
        pixel_loss = pixel_criterion(sr, hr)
        perceptual_loss = perceptual_criterion(sr, hr)
        adversarial_loss = adversarial_criterion(output, real_label)
        errG = pixel_loss + 0.006 * perceptual_loss + 0.001 * adversarial_loss
        errG.backward()
        generator_optimizer.step()

        progress_bar.set_description(f"[{epoch + 1}/{total_epoch}][{i + 1}/{len(dataloader)}] "
                                     f"Loss_D: {errD.item():.6f} Loss_G: {errG.item():.6f}")

        iters = i + epoch * len(dataloader) + 1
        if iters == int(total_iters):
            break

    discriminator_scheduler.step()
    generator_scheduler.step()


class Trainer(object):
    def __init__(self, args):
        self.args = args
        init_torch_seeds(args.manualSeed)

        train_dataset = CustomTrainDataset(root=os.path.join(args.data, "train"))
        test_dataset = CustomTestDataset(root=os.path.join(args.data, "test"), image_size=args.image_size)
        self.train_dataloader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True,
                                                            pin_memory=True, num_workers=int(args.workers))
        self.test_dataloader = torch.utils.data.DataLoader(test_dataset, batch_size=args.batch_size, shuffle=False,
                                                           pin_memory=True, num_workers=int(args.workers))

        self.device = select_device(args.device, batch_size=1)
        self.generator = models.__dict__[args.arch]().to(self.device)
        self.discriminator = discriminator().to(self.device)
        self.generator = self.generator.apply(weights_init)
        self.discriminator = self.discriminator.apply(weights_init)

        # PSNR pre-training
        self.start_psnr_epoch = math.floor(args.start_psnr_iter / len(self.train_dataloader))
        self.psnr_epochs = math.ceil(args.psnr_iters / len(self.train_dataloader))
        self.psnr_optimizer = torch.optim.Adam(self.generator.parameters(), lr=args.lr, betas=(0.9, 0.999))
        self.scaler = amp.GradScaler()

        # adversarial training
        self.start_epoch = math.floor(args.start_iter / len(self.train_dataloader))
        self.epochs = math.ceil(args.iters / len(self.train_dataloader))
        self.discriminator_optimizer = torch.optim.Adam(self.discriminator.parameters(), lr=args.lr,
                                                        betas=(0.9, 0.999))
        self.generator_optimizer = torch.optim.Adam(self.generator.parameters(), lr=args.lr, betas=(0.9, 0.999))
        self.discriminator_scheduler = torch.optim.lr_scheduler.StepLR(self.discriminator_optimizer,
                                                                       step_size=self.epochs // 2, gamma=0.1)
        self.generator_scheduler = torch.optim.lr_scheduler.StepLR(self.generator_optimizer,
                                                                   step_size=self.epochs // 2, gamma=0.1)

        self.pixel_criterion = nn.MSELoss().to(self.device)
        self.adversarial_criterion = nn.BCELoss().to(self.device)
        self.perceptual_criterion = VGGLoss().to(self.device)

    def run(self):
        args = self.args
        best_psnr = 0.

        with open("SRResNet.csv", "w+") as f:
            csv.writer(f).writerow(["Iter", "PSNR"])

        for psnr_epoch in range(self.start_psnr_epoch, self.psnr_epochs):
            train_psnr(epoch=psnr_epoch,
                       total_epoch=self.psnr_epochs,
                       total_iters=args.psnr_iters,
                       dataloader=self.train_dataloader,
                       model=self.generator,
                       pixel_criterion=self.pixel_criterion,
                       optimizer=self.psnr_optimizer,
                       scaler=self.scaler,
                       device=self.device)

            psnr = test_psnr(model=self.generator, pixel_criterion=self.pixel_criterion,
                             dataloader=self.test_dataloader, device=self.device)
            iters = (psnr_epoch + 1) * len(self.train_dataloader)
            is_best = psnr > best_psnr
            best_psnr = max(psnr, best_psnr)
            save_checkpoint({"iter": iters, "state_dict": self.generator.state_dict(), "best_psnr": best_psnr,
                             "optimizer": self.psnr_optimizer.state_dict()}, is_best,
                            os.path.join("weights", f"SRResNet_iter_{iters}.pth"),
                            os.path.join("weights", "SRResNet.pth"))
            with open("SRResNet.csv", "a+") as f:
                csv.writer(f).writerow([iters, psnr])

        self.generator.load_state_dict(torch.load(os.path.join("weights", "SRResNet.pth"),
                                                  map_location=self.device)["state_dict"])

        for epoch in range(self.start_epoch, self.epochs):
            train_gan(epoch=epoch,
                      total_epoch=self.epochs,
                      total_iters=args.iters,
                      dataloader=self.train_dataloader,
                      discriminator=self.discriminator,
                      generator=self.generator,
                      pixel_criterion=self.pixel_criterion,
                      perceptual_criterion=self.perceptual_criterion,
                      adversarial_criterion=self.adversarial_criterion,
                      discriminator_optimizer=self.discriminator_optimizer,
                      generator_optimizer=self.generator_optimizer,
                      discriminator_scheduler=self.discriminator_scheduler,
                      generator_scheduler=self.generator_scheduler,
                      device=self.device)
            psnr = test_psnr(model=self.generator, pixel_criterion=self.pixel_criterion,
                             dataloader=self.test_dataloader, device=self.device)
            torch.save(self.discriminator.state_dict(), os.path.join("weights", "Discriminator.pth"))
            torch.save(self.generator.state_dict(), os.path.join("weights", f"SRGAN_epoch_{epoch}.pth"))
