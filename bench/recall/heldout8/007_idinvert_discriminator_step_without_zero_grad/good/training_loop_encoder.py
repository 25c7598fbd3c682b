import torch
import torch.nn.functional as F


def training_loop(E, G, D, data_loader, max_iters, lr=1e-4, adv_weight=0.08, r1_gamma=10.0):
    optimizer_E = torch.optim.Adam(E.parameters(), lr=lr, betas=(0.9, 0.99))
    optimizer_D = torch.optim.Adam(D.parameters(), lr=lr, betas=(0.9, 0.99))
    data_iter = iter(data_loader)
    for it in range(max_iters):
        x = next(data_iter).cuda()

        # update discriminator
        optimizer_D.zero_grad()
        x.requires_grad_(True)
        w = E(x)
        x_rec = G.synthesis(w)
        d_real = D(x)
        d_fake = D(x_rec.detach())
        loss_d = F.softplus(d_fake).mean() + F.softplus(-d_real).mean()
        grad_real = torch.autograd.grad(d_real.sum(), x, create_graph=True)[0]
        loss_d = loss_d + r1_gamma * 0.5 * grad_real.pow(2).sum(dim=[1, 2, 3]).mean()
        loss_d.backward()
        optimizer_D.step()

        # update encoder
        optimizer_E.zero_grad()
        w = E(x.detach())
        x_rec = G.synthesis(w)
        loss_pix = F.mse_loss(x_rec, x.detach())
        loss_adv = F.softplus(-D(x_rec)).mean()
        loss_e = loss_pix + adv_weight * loss_adv
        loss_e.backward()
        optimizer_E.step()

        if it % 100 == 0:
            print(f"iter {it}: loss_d {loss_d.item():.4f} loss_e {loss_e.item():.4f}")
