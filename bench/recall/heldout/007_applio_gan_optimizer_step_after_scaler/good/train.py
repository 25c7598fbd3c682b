import torch


def train_epoch(net_g, net_d, optim_g, optim_d, scaler, loader, discriminator_loss, generator_loss, use_amp):
    net_g.train()
    net_d.train()
    for phone, wave in loader:
        with torch.autocast("cuda", enabled=use_amp):
            y_hat = net_g(phone)
            real_scores, fake_scores = net_d(wave, y_hat.detach())
            loss_disc = discriminator_loss(real_scores, fake_scores)
        optim_d.zero_grad()
        scaler.scale(loss_disc).backward()
        scaler.unscale_(optim_d)
        torch.nn.utils.clip_grad_norm_(net_d.parameters(), 1000.0)
        scaler.step(optim_d)

        with torch.autocast("cuda", enabled=use_amp):
            _, fake_scores = net_d(wave, y_hat)
            loss_gen_all = generator_loss(fake_scores)
        optim_g.zero_grad()
        scaler.scale(loss_gen_all).backward()
        scaler.unscale_(optim_g)
        torch.nn.utils.clip_grad_norm_(net_g.parameters(), 1000.0)
        scaler.step(optim_g)
        scaler.update()
