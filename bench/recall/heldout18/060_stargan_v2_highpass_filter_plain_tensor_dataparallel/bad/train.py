import torch
import torch.nn.functional as F

from model import build_model


def main(steps=1000, device="cuda" if torch.cuda.is_available() else "cpu"):
    generator, discriminator = build_model(w_hpf=1)
    generator, discriminator = generator.to(device), discriminator.to(device)
    g_opt = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.0, 0.99))
    d_opt = torch.optim.Adam(discriminator.parameters(), lr=1e-4, betas=(0.0, 0.99))
    for step in range(steps):
        x_real = torch.randn(16, 3, 64, 64, device=device)
        y_org = torch.randint(0, 2, (16,), device=device)
        masks = torch.rand(16, 1, 64, 64, device=device)

        with torch.no_grad():
            x_fake = generator(x_real, masks)
        d_loss = F.softplus(-discriminator(x_real, y_org)).mean() + F.softplus(discriminator(x_fake, 1 - y_org)).mean()
        d_opt.zero_grad()
        d_loss.backward()
        d_opt.step()

        x_fake = generator(x_real, masks)
        g_loss = F.softplus(-discriminator(x_fake, 1 - y_org)).mean() + (x_fake - x_real).abs().mean()
        g_opt.zero_grad()
        g_loss.backward()
        g_opt.step()
        if step % 100 == 0:
            print(step, d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
