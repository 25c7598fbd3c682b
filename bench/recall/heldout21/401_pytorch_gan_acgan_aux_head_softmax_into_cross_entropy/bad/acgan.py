import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torchvision.transforms as transforms
from torchvision import datasets
from torchvision.utils import save_image

parser = argparse.ArgumentParser()
parser.add_argument("--n_epochs", type=int, default=200)
parser.add_argument("--batch_size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.0002)
parser.add_argument("--b1", type=float, default=0.5)
parser.add_argument("--b2", type=float, default=0.999)
parser.add_argument("--latent_dim", type=int, default=100)
parser.add_argument("--n_classes", type=int, default=10)
parser.add_argument("--img_size", type=int, default=32)
parser.add_argument("--channels", type=int, default=1)
parser.add_argument("--sample_interval", type=int, default=400)
opt = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
os.makedirs("images", exist_ok=True)


def init_weights_normal(m):
    name = m.__class__.__name__
    if "Conv" in name:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm2d" in name:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_emb = nn.Embedding(opt.n_classes, opt.latent_dim)
        self.init_size = opt.img_size // 4
        self.fc = nn.Linear(opt.latent_dim, 128 * self.init_size ** 2)
        self.blocks = nn.Sequential(
            nn.BatchNorm2d(128),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(128, 128, 3, padding=1),
            nn.BatchNorm2d(128, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(128, 64, 3, padding=1),
            nn.BatchNorm2d(64, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(64, opt.channels, 3, padding=1),
            nn.Tanh(),
        )

    def forward(self, noise, labels):
        h = self.fc(self.label_emb(labels) * noise)
        h = h.view(h.size(0), 128, self.init_size, self.init_size)
        return self.blocks(h)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()

        def block(c_in, c_out, bn=True):
            layers = [nn.Conv2d(c_in, c_out, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True), nn.Dropout2d(0.25)]
            if bn:
                layers.append(nn.BatchNorm2d(c_out, 0.8))
            return layers

        self.features = nn.Sequential(
            *block(opt.channels, 16, bn=False),
            *block(16, 32),
            *block(32, 64),
            *block(64, 128),
        )
        ds = opt.img_size // 2 ** 4
        self.adv_head = nn.Sequential(nn.Linear(128 * ds ** 2, 1), nn.Sigmoid())
        self.aux_head = nn.Sequential(nn.Linear(128 * ds ** 2, opt.n_classes), nn.Softmax())  # expect: TCK608

    def forward(self, img):
        h = self.features(img).flatten(1)
        validity = self.adv_head(h)
        label = self.aux_head(h)
        return validity, label


adversarial_loss = nn.BCELoss().to(device)
auxiliary_loss = nn.CrossEntropyLoss().to(device)

generator = Generator().to(device)
discriminator = Discriminator().to(device)
generator.apply(init_weights_normal)
discriminator.apply(init_weights_normal)

loader = torch.utils.data.DataLoader(
    datasets.MNIST(
        "data/mnist",
        train=True,
        download=True,
        transform=transforms.Compose(
            [transforms.Resize(opt.img_size), transforms.ToTensor(), transforms.Normalize([0.5], [0.5])]
        ),
    ),
    batch_size=opt.batch_size,
    shuffle=True,
)

optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))


@torch.no_grad()
def sample_grid(n_row, step):
    z = torch.randn(n_row ** 2, opt.latent_dim, device=device)
    labels = torch.arange(n_row, device=device).repeat(n_row)
    save_image(generator(z, labels), f"images/{step}.png", nrow=n_row, normalize=True)


for epoch in range(opt.n_epochs):
    for i, (imgs, labels) in enumerate(loader):
        bs = imgs.size(0)
        valid = torch.ones(bs, 1, device=device)
        fake = torch.zeros(bs, 1, device=device)
        real_imgs = imgs.to(device)
        labels = labels.to(device)

        # generator step
        optimizer_G.zero_grad()
        z = torch.randn(bs, opt.latent_dim, device=device)
        gen_labels = torch.randint(0, opt.n_classes, (bs,), device=device)
        gen_imgs = generator(z, gen_labels)
        validity, pred_label = discriminator(gen_imgs)
        g_loss = 0.5 * (adversarial_loss(validity, valid) + auxiliary_loss(pred_label, gen_labels))  # expect: TCK605
        g_loss.backward()
        optimizer_G.step()

        # discriminator step
        optimizer_D.zero_grad()
        real_pred, real_aux = discriminator(real_imgs)
        d_real_loss = (adversarial_loss(real_pred, valid) + auxiliary_loss(real_aux, labels)) / 2  # expect: TCK605
        fake_pred, fake_aux = discriminator(gen_imgs.detach())
        d_fake_loss = (adversarial_loss(fake_pred, fake) + auxiliary_loss(fake_aux, gen_labels)) / 2  # expect: TCK605
        d_loss = (d_real_loss + d_fake_loss) / 2

        pred = torch.cat([real_aux, fake_aux]).argmax(dim=1)
        gt = torch.cat([labels, gen_labels])
        d_acc = (pred == gt).float().mean().item()

        d_loss.backward()
        optimizer_D.step()

        print(
            f"[Epoch {epoch}/{opt.n_epochs}] [Batch {i}/{len(loader)}] "
            f"[D loss: {d_loss.item():.4f}, acc: {100 * d_acc:.0f}%] [G loss: {g_loss.item():.4f}]"
        )
        step = epoch * len(loader) + i
        if step % opt.sample_interval == 0:
            sample_grid(10, step)
