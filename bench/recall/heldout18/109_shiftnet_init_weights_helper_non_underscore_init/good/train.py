import torch
import torch.nn as nn

from networks import define_D, define_G


def train(loader, epochs=30, init_type="xavier"):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net_g = define_G(init_type=init_type, device=device)
    net_d = define_D(init_type=init_type, device=device)
    opt_g = torch.optim.Adam(net_g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(net_d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    gan_loss, l1 = nn.BCEWithLogitsLoss(), nn.L1Loss()
    for epoch in range(epochs):
        for masked, real in loader:
            masked, real = masked.to(device), real.to(device)
            fake = net_g(masked)

            opt_d.zero_grad()
            pred_real, pred_fake = net_d(real), net_d(fake.detach())
            loss_d = gan_loss(pred_real, torch.ones_like(pred_real)) + gan_loss(pred_fake, torch.zeros_like(pred_fake))
            loss_d.backward()
            opt_d.step()

            opt_g.zero_grad()
            pred_fake = net_d(fake)
            loss_g = gan_loss(pred_fake, torch.ones_like(pred_fake)) + 100.0 * l1(fake, real)
            loss_g.backward()
            opt_g.step()
