"""Fine-tunes a Stable Diffusion UNet and text encoder; the optimizer wrapper does backward and step."""
import argparse

import torch
import torch.nn.functional as F
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
from transformers import CLIPTextModel

from optimizer.optimizers import EveryDreamOptimizer


def get_model_prediction_and_target(batch, unet, text_encoder, vae, noise_scheduler, device):
    with torch.no_grad():
        latents = vae.encode(batch["image"].to(device)).latent_dist.sample() * 0.18215
    noise = torch.randn_like(latents)
    timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],), device=device)
    noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
    encoder_hidden_states = text_encoder(batch["tokens"].to(device))[0]
    model_pred = unet(noisy_latents, timesteps, encoder_hidden_states).sample
    return model_pred, noise


def main(args, train_loader):
    device = torch.device("cuda")
    unet = UNet2DConditionModel.from_pretrained(args.model, subfolder="unet").to(device)
    text_encoder = CLIPTextModel.from_pretrained(args.model, subfolder="text_encoder").to(device)
    vae = AutoencoderKL.from_pretrained(args.model, subfolder="vae").to(device)
    noise_scheduler = DDPMScheduler.from_pretrained(args.model, subfolder="scheduler")

    ed_optimizer = EveryDreamOptimizer(args, text_encoder, unet, epoch_len=len(train_loader))
    global_step = 0
    for epoch in range(args.max_epochs):
        unet.train()
        text_encoder.train()
        for step, batch in enumerate(train_loader):
            with torch.autocast("cuda", enabled=args.amp):
                model_pred, target = get_model_prediction_and_target(
                    batch, unet, text_encoder, vae, noise_scheduler, device)
                loss = F.mse_loss(model_pred.float(), target.float(), reduction="mean")
            ed_optimizer.step(loss, step, global_step)
            global_step += 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="runwayml/stable-diffusion-v1-5")
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--grad_accum", type=int, default=1)
    parser.add_argument("--clip_grad_norm", type=float, default=None)
    parser.add_argument("--lr", type=float, default=1e-6)
    parser.add_argument("--lr_te", type=float, default=1e-6)
    parser.add_argument("--lr_scheduler", default="constant")
    parser.add_argument("--lr_warmup_steps", type=int, default=0)
    parser.add_argument("--lr_decay_steps", type=int, default=10000)
    parser.add_argument("--max_epochs", type=int, default=10)
    parser.add_argument("--resume_ckpt", default="")
    parser.add_argument("--disable_textenc_training", action="store_true")
    parser.add_argument("--disable_unet_training", action="store_true")
    main(parser.parse_args(), train_loader=[])
