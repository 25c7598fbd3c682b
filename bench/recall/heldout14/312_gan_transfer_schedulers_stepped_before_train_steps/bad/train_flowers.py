import torch
from torch.utils.data import DataLoader, TensorDataset

from models import Discriminator, Generator
from trainer import Trainer

config = {"lr_g": 1e-4, "lr_d": 1e-4, "lr_anneal": 0.5, "lr_anneal_every": 5000, "batch_size": 16, "z_dim": 128}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def build_lr_scheduler(optimizer, config):
    return torch.optim.lr_scheduler.StepLR(optimizer, step_size=config["lr_anneal_every"], gamma=config["lr_anneal"])


images = torch.rand(400, 3, 32, 32) * 2 - 1
labels = torch.zeros(400, dtype=torch.long)
train_loader = DataLoader(TensorDataset(images, labels), batch_size=config["batch_size"], shuffle=True, drop_last=True)

generator, discriminator = Generator().to(device), Discriminator().to(device)
g_optimizer = torch.optim.Adam(generator.parameters(), lr=config["lr_g"], betas=(0.0, 0.99))
d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=config["lr_d"], betas=(0.0, 0.99))
g_scheduler = build_lr_scheduler(g_optimizer, config)
d_scheduler = build_lr_scheduler(d_optimizer, config)
trainer = Trainer(generator, discriminator, g_optimizer, d_optimizer)

it = -1
for epoch_idx in range(20):
    for x_real, y in train_loader:
        it += 1
        g_scheduler.step()  # expect: TCK104
        d_scheduler.step()  # expect: TCK104
        x_real, y = x_real.to(device), y.to(device)
        z = torch.randn(config["batch_size"], config["z_dim"], device=device)
        gloss, x_fake = trainer.generator_trainstep(y, z)
        dloss, reg = trainer.discriminator_trainstep(x_real, y, x_fake)
        if it % 100 == 0:
            print(f"[epoch {epoch_idx}, it {it}] g_loss = {gloss:.4f}, d_loss = {dloss:.4f}, reg = {reg:.4f}")
