import torch

from BigGAN import discriminator_loss, generator_loss


def GAN_training_function(G, D, GD, config, device):
    def sample_latents(batch_size):
        z = torch.randn(batch_size, G.dim_z, device=device)
        y = torch.randint(0, config["n_classes"], (batch_size,), device=device)
        return z, y

    def train(x, y):
        G.optim.zero_grad()
        D.optim.zero_grad()
        x = torch.split(x, config["batch_size"])
        y = torch.split(y, config["batch_size"])
        counter = 0

        for step_index in range(config["num_D_steps"]):
            D.optim.zero_grad()
            for accumulation_index in range(config["num_D_accumulations"]):
                z_, y_ = sample_latents(config["batch_size"])
                D_fake, D_real = GD(z_, y_, x[counter], y[counter], train_G=False)
                D_loss_real, D_loss_fake = discriminator_loss(D_fake, D_real)
                D_loss = (D_loss_real + D_loss_fake) / float(config["num_D_accumulations"])
                D_loss.backward()
                counter += 1
            D.optim.step()

        G.optim.zero_grad()
        for accumulation_index in range(config["num_G_accumulations"]):
            z_, y_ = sample_latents(config["batch_size"])
            D_fake = GD(z_, y_, train_G=True)
            G_loss = generator_loss(D_fake) / float(config["num_G_accumulations"])
            G_loss.backward()
        G.optim.step()

        return {"G_loss": float(G_loss.item()), "D_loss_real": float(D_loss_real.item()),
                "D_loss_fake": float(D_loss_fake.item())}

    return train
