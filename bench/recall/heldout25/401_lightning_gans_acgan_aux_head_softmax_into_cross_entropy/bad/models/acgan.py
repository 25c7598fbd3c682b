"""Auxiliary-classifier GAN on MNIST as a LightningModule.

Run with ``python -m models.acgan --gpus 1``.
"""
import os
from argparse import ArgumentParser, Namespace
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as transforms
from pytorch_lightning.core import LightningModule
from pytorch_lightning.trainer import Trainer
from torch.utils.data import DataLoader
from torchvision.datasets import MNIST


class Generator(nn.Module):
    def __init__(self, latent_dim, img_shape, n_classes):
        super().__init__()
        self.img_shape = img_shape
        self.init_size = img_shape[1] // 4
        self.label_emb = nn.Embedding(n_classes, latent_dim)
        self.l1 = nn.Sequential(nn.Linear(latent_dim, 128 * self.init_size ** 2))
        self.conv_blocks = nn.Sequential(
            nn.BatchNorm2d(128),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(128, 128, 3, stride=1, padding=1),
            nn.BatchNorm2d(128, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(128, 64, 3, stride=1, padding=1),
            nn.BatchNorm2d(64, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(64, img_shape[0], 3, stride=1, padding=1),
            nn.Tanh(),
        )

    def forward(self, z, labels):
        h = torch.mul(self.label_emb(labels), z)
        h = self.l1(h).view(h.shape[0], 128, self.init_size, self.init_size)
        return self.conv_blocks(h)


class Discriminator(nn.Module):
    def __init__(self, img_shape, n_classes):
        super(Discriminator, self).__init__()

        def block(in_feat, out_feat, bn=True):
            layers = [nn.Conv2d(in_feat, out_feat, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True), nn.Dropout2d(0.25)]
            if bn:
                layers.append(nn.BatchNorm2d(out_feat, 0.8))
            return layers

        self.model = nn.Sequential(
            *block(img_shape[0], 16, bn=False),
            *block(16, 32),
            *block(32, 64),
            *block(64, 128),
        )
        ds_size = img_shape[1] // 2 ** 4
        # real/fake head (probability) and class head
        self.adv_layer = nn.Sequential(nn.Linear(128 * ds_size ** 2, 1), nn.Sigmoid())
        self.aux_layer = nn.Sequential(nn.Linear(128 * ds_size ** 2, n_classes), nn.Softmax())  # expect: TCK608

    def forward(self, img):
        features = self.model(img).flatten(1)
        validity = self.adv_layer(features)
        label = self.aux_layer(features)
        return validity, label


class ACGAN(LightningModule):
    def __init__(self, latent_dim: int = 100, n_classes: int = 10, lr: float = 0.0002,
                 b1: float = 0.5, b2: float = 0.999, batch_size: int = 64, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        self.latent_dim = latent_dim
        self.n_classes = n_classes
        self.lr = lr
        self.b1 = b1
        self.b2 = b2
        self.batch_size = batch_size

        img_shape = (1, 32, 32)
        self.generator = Generator(latent_dim=latent_dim, img_shape=img_shape, n_classes=n_classes)
        self.discriminator = Discriminator(img_shape=img_shape, n_classes=n_classes)

    def forward(self, z, labels):
        return self.generator(z, labels)

    def adversarial_loss(self, y_hat, y):
        return F.binary_cross_entropy(y_hat, y)

    def auxiliary_loss(self, y_hat, y):
        return F.cross_entropy(y_hat, y)  # expect: TCK605

    def training_step(self, batch, batch_idx, optimizer_idx):
        imgs, labels = batch
        z = torch.randn(imgs.shape[0], self.latent_dim).type_as(imgs)
        gen_labels = torch.randint(0, self.n_classes, (imgs.shape[0],), device=imgs.device)

        if optimizer_idx == 0:
            # generator: fool the discriminator and make the class recognisable
            gen_imgs = self(z, gen_labels)
            grid = torchvision.utils.make_grid(gen_imgs[:6])
            self.logger.experiment.add_image("generated_images", grid, 0)
            valid = torch.ones(imgs.size(0), 1).type_as(imgs)
            validity, pred_label = self.discriminator(gen_imgs)
            g_loss = 0.5 * self.adversarial_loss(validity, valid) + self.auxiliary_loss(pred_label, gen_labels)
            return OrderedDict({"loss": g_loss, "progress_bar": {"g_loss": g_loss}, "log": {"g_loss": g_loss}})

        if optimizer_idx == 1:
            # discriminator: real images with their labels, generated ones with the sampled labels
            valid = torch.ones(imgs.size(0), 1).type_as(imgs)
            fake = torch.zeros(imgs.size(0), 1).type_as(imgs)
            real_validity, real_pred = self.discriminator(imgs)
            real_loss = 0.5 * self.adversarial_loss(real_validity, valid) + self.auxiliary_loss(real_pred, labels)
            fake_validity, fake_pred = self.discriminator(self(z, gen_labels).detach())
            fake_loss = 0.5 * self.adversarial_loss(fake_validity, fake) + self.auxiliary_loss(fake_pred, gen_labels)
            d_loss = (real_loss + fake_loss) / 2
            return OrderedDict({"loss": d_loss, "progress_bar": {"d_loss": d_loss}, "log": {"d_loss": d_loss}})

    def configure_optimizers(self):
        betas = (self.b1, self.b2)
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=self.lr, betas=betas)
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=self.lr, betas=betas)
        return [opt_g, opt_d], []

    def train_dataloader(self):
        transform = transforms.Compose([
            transforms.Resize((32, 32)),
            transforms.ToTensor(),
            transforms.Normalize([0.5], [0.5]),
        ])
        dataset = MNIST(os.getcwd(), train=True, download=True, transform=transform)
        return DataLoader(dataset, batch_size=self.batch_size, drop_last=True)


def main(args: Namespace) -> None:
    model = ACGAN(**vars(args))
    trainer = Trainer(gpus=args.gpus)
    trainer.fit(model)


if __name__ == "__main__":
    parser = ArgumentParser()
    parser.add_argument("--gpus", type=int, default=0)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.0002)
    parser.add_argument("--b1", type=float, default=0.5)
    parser.add_argument("--b2", type=float, default=0.999)
    parser.add_argument("--latent_dim", type=int, default=100)
    main(parser.parse_args())
