import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from vocoder_models import Discriminator, Generator, discriminator_loss, generator_loss


def train(model_G, optimizer_G, scheduler_G, model_D, optimizer_D, scheduler_D, data_loader,
          global_step, steps_to_start_discriminator=2000, gen_clip_grad=-1, disc_clip_grad=-1):
    model_G.train()
    model_D.train()
    end_time = time.time()
    for num_iter, (c_G, y_G) in enumerate(data_loader):
        c_G, y_G = c_G.cuda(non_blocking=True), y_G.cuda(non_blocking=True)
        global_step += 1

        # generator
        y_hat = model_G(c_G)
        scores_fake = None
        if global_step > steps_to_start_discriminator:
            scores_fake = model_D(y_hat)
        loss_G = generator_loss(y_hat, y_G, scores_fake)
        optimizer_G.zero_grad()
        loss_G.backward()
        if gen_clip_grad > 0:
            nn.utils.clip_grad_norm_(model_G.parameters(), gen_clip_grad)
        optimizer_G.step()
        if scheduler_G is not None:
            scheduler_G.step()
        loss_dict = {"G_loss": loss_G.item()}

        # discriminator
        if global_step >= steps_to_start_discriminator:
            loss_D = discriminator_loss(model_D(y_hat.detach()), model_D(y_G))
            optimizer_D.zero_grad()
            loss_D.backward()
            if disc_clip_grad > 0:
                nn.utils.clip_grad_norm_(model_D.parameters(), disc_clip_grad)
            optimizer_D.step()
            if scheduler_D is not None:
                scheduler_D.step()
            loss_dict["D_loss"] = loss_D.item()

        if global_step % 25 == 0:
            print(global_step, num_iter, loss_dict, "step time", time.time() - end_time)
        end_time = time.time()
        torch.cuda.empty_cache()  # expect: TCK203
    return global_step


def main(epochs=100):
    model_G, model_D = Generator().cuda(), Discriminator().cuda()
    optimizer_G = torch.optim.Adam(model_G.parameters(), lr=1e-4, betas=(0.8, 0.99))
    optimizer_D = torch.optim.Adam(model_D.parameters(), lr=1e-4, betas=(0.8, 0.99))
    scheduler_G = torch.optim.lr_scheduler.ExponentialLR(optimizer_G, gamma=0.999)
    scheduler_D = torch.optim.lr_scheduler.ExponentialLR(optimizer_D, gamma=0.999)
    loader = DataLoader(TensorDataset(torch.randn(256, 80, 32), torch.randn(256, 1, 8192)), batch_size=16, shuffle=True)
    global_step = 0
    for epoch in range(epochs):
        global_step = train(model_G, optimizer_G, scheduler_G, model_D, optimizer_D, scheduler_D, loader, global_step)


if __name__ == "__main__":
    main()
