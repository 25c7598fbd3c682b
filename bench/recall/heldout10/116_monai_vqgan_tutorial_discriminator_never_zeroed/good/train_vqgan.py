import time

import torch
from generative.losses import PatchAdversarialLoss, PerceptualLoss
from generative.networks.nets import VQVAE, PatchDiscriminator
from monai.data import DataLoader, Dataset
from torch.nn import L1Loss
from tqdm import tqdm


def build_loader(n=64):
    data = [{"image": torch.rand(1, 64, 64)} for _ in range(n)]
    return DataLoader(Dataset(data), batch_size=16, shuffle=True, num_workers=2)


def main(n_epochs=100):
    device = torch.device("cuda")
    train_loader = build_loader()
    model = VQVAE(spatial_dims=2, in_channels=1, out_channels=1, num_res_layers=2, num_levels=2,
                  downsample_parameters=((2, 4, 1, 1), (2, 4, 1, 1)),
                  upsample_parameters=((2, 4, 1, 1, 0), (2, 4, 1, 1, 0)),
                  num_channels=256, num_embeddings=256, embedding_dim=32).to(device)
    discriminator = PatchDiscriminator(spatial_dims=2, num_layers_d=3, num_channels=64, in_channels=1,
                                       out_channels=1, norm="BATCH", bias=False, padding=1).to(device)
    perceptual_loss = PerceptualLoss(spatial_dims=2, network_type="alex").to(device)
    optimizer_g = torch.optim.Adam(params=model.parameters(), lr=1e-4)
    optimizer_d = torch.optim.Adam(params=discriminator.parameters(), lr=5e-4)
    l1_loss = L1Loss()
    adv_loss = PatchAdversarialLoss(criterion="least_squares")
    adv_weight, perceptual_weight = 0.01, 0.001

    start = time.time()
    for epoch in range(n_epochs):
        model.train()
        discriminator.train()
        epoch_loss = 0.0
        progress_bar = tqdm(enumerate(train_loader), total=len(train_loader), ncols=110)
        for step, batch in progress_bar:
            images = batch["image"].to(device)
            optimizer_g.zero_grad(set_to_none=True)

            # Generator part
            reconstruction, quantization_loss = model(images=images)
            logits_fake = discriminator(reconstruction.contiguous().float())[-1]
            recons_loss = l1_loss(reconstruction.float(), images.float())
            p_loss = perceptual_loss(reconstruction.float(), images.float())
            generator_loss = adv_loss(logits_fake, target_is_real=True, for_discriminator=False)
            loss_g = recons_loss + quantization_loss + perceptual_weight * p_loss + adv_weight * generator_loss
            loss_g.backward()
            optimizer_g.step()

            # Discriminator part
            optimizer_d.zero_grad(set_to_none=True)
            logits_fake = discriminator(reconstruction.contiguous().detach())[-1]
            loss_d_fake = adv_loss(logits_fake, target_is_real=False, for_discriminator=True)
            logits_real = discriminator(images.contiguous().detach())[-1]
            loss_d_real = adv_loss(logits_real, target_is_real=True, for_discriminator=True)
            loss_d = adv_weight * (loss_d_fake + loss_d_real) * 0.5
            loss_d.backward()
            optimizer_d.step()

            epoch_loss += recons_loss.item()
            progress_bar.set_postfix({"recons_loss": epoch_loss / (step + 1)})
    print(f"train completed, total time: {time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
