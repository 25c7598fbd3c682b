import torch
import torch.nn.functional as F


def main(args, unet, vae, text_encoder, noise_scheduler, train_dataloader, optimizer, lr_scheduler):
    scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)
    unet.train()
    for epoch in range(args.epochs):
        for step, batch in enumerate(train_dataloader):
            latents = vae.encode(batch["pixel_values"].to("cuda")).latent_dist.sample() * 0.18215
            noise = torch.randn_like(latents)
            timesteps = torch.randint(0, 1000, (latents.shape[0],), device=latents.device)
            noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
            encoder_hidden_states = text_encoder(batch["input_ids"].to("cuda"))[0]

            with torch.autocast("cuda", enabled=args.fp16):
                noise_pred = unet(noisy_latents, timesteps, encoder_hidden_states).sample
            loss = F.mse_loss(noise_pred.float(), noise.float(), reduction="mean")

            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(unet.parameters(), args.clip_grad_norm)  # expect: TCK305
            scaler.step(optimizer)
            scaler.update()
            lr_scheduler.step()
            optimizer.zero_grad()
