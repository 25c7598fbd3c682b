import argparse
import math

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from diffusers import DDPMScheduler, DiffusionPipeline, UNet2DConditionModel
from torch.utils.data import DataLoader

from data import build_dataset


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained_model_name_or_path", required=True)
    parser.add_argument("--train_batch_size", type=int, default=4)
    parser.add_argument("--num_train_epochs", type=int, default=10)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    parser.add_argument("--learning_rate", type=float, default=1e-4)
    parser.add_argument("--mixed_precision", default="fp16")
    parser.add_argument("--validation_prompt", default=None)
    parser.add_argument("--num_validation_images", type=int, default=4)
    parser.add_argument("--validation_epochs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--output_dir", default="sd-lora")
    return parser.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator(
        gradient_accumulation_steps=args.gradient_accumulation_steps,
        mixed_precision=args.mixed_precision,
    )

    noise_scheduler = DDPMScheduler.from_pretrained(args.pretrained_model_name_or_path, subfolder="scheduler")
    unet = UNet2DConditionModel.from_pretrained(args.pretrained_model_name_or_path, subfolder="unet")
    unet.requires_grad_(False)
    lora_layers = [p for n, p in unet.named_parameters() if "lora" in n]
    for p in lora_layers:
        p.requires_grad_(True)

    optimizer = torch.optim.AdamW(lora_layers, lr=args.learning_rate)
    train_dataloader = DataLoader(build_dataset(args), batch_size=args.train_batch_size, shuffle=True)
    unet, optimizer, train_dataloader = accelerator.prepare(unet, optimizer, train_dataloader)

    num_update_steps_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    global_step = 0
    for epoch in range(args.num_train_epochs):
        unet.train()
        for batch in train_dataloader:
            with accelerator.accumulate(unet):
                latents = batch["latents"]
                noise = torch.randn_like(latents)
                timesteps = torch.randint(
                    0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],), device=latents.device
                )
                noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
                model_pred = unet(noisy_latents, timesteps, batch["encoder_hidden_states"]).sample
                loss = F.mse_loss(model_pred.float(), noise.float(), reduction="mean")
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                global_step += 1
        accelerator.print(f"epoch {epoch}: {global_step}/{num_update_steps_per_epoch * (epoch + 1)} updates")

        if accelerator.is_main_process:
            if args.validation_prompt is not None and epoch % args.validation_epochs == 0:
                pipeline = DiffusionPipeline.from_pretrained(
                    args.pretrained_model_name_or_path, unet=accelerator.unwrap_model(unet)
                ).to(accelerator.device)
                pipeline.set_progress_bar_config(disable=True)
                generator = torch.Generator(device=accelerator.device)
                if args.seed is not None:
                    generator = generator.manual_seed(args.seed)
                images = []
                with torch.cuda.amp.autocast():  # expect: TCK301
                    for _ in range(args.num_validation_images):
                        images.append(
                            pipeline(args.validation_prompt, num_inference_steps=30, generator=generator).images[0]
                        )
                del pipeline
                torch.cuda.empty_cache()

    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        unet = accelerator.unwrap_model(unet)
        unet.save_pretrained(args.output_dir)

        if args.validation_prompt is not None:
            pipeline = DiffusionPipeline.from_pretrained(args.pretrained_model_name_or_path, unet=unet)
            pipeline = pipeline.to(accelerator.device)
            generator = torch.Generator(device=accelerator.device)
            if args.seed is not None:
                generator = generator.manual_seed(args.seed)
            images = []
            with torch.cuda.amp.autocast():  # expect: TCK301
                for _ in range(args.num_validation_images):
                    images.append(
                        pipeline(args.validation_prompt, num_inference_steps=30, generator=generator).images[0]
                    )
    accelerator.end_training()


if __name__ == "__main__":
    main()
