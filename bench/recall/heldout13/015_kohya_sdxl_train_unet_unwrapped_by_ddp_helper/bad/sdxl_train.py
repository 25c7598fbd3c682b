import argparse

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from diffusers import DDPMScheduler, UNet2DConditionModel
from torch.utils.data import DataLoader, TensorDataset

from library import train_util


def train(args):
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps,
                              mixed_precision="bf16")
    unet = UNet2DConditionModel.from_pretrained(args.pretrained_model_name_or_path, subfolder="unet")
    noise_scheduler = DDPMScheduler.from_pretrained(args.pretrained_model_name_or_path, subfolder="scheduler")
    unet.enable_gradient_checkpointing()
    unet.train()

    # cached latents / text conditioning (precomputed by the caching step)
    dataset = TensorDataset(torch.randn(512, 4, 128, 128), torch.randn(512, 77, 2048), torch.randn(512, 2816))
    train_dataloader = DataLoader(dataset, batch_size=args.train_batch_size, shuffle=True)
    optimizer = torch.optim.AdamW(unet.parameters(), lr=args.learning_rate)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)

    unet = accelerator.prepare(unet)
    (unet,) = train_util.transform_models_if_DDP([unet])
    optimizer, train_dataloader, lr_scheduler = accelerator.prepare(optimizer, train_dataloader, lr_scheduler)

    global_step = 0
    for epoch in range(args.max_train_epochs):
        for latents, text_embedding, vector_embedding in train_dataloader:
            with accelerator.accumulate(unet):
                latents = latents * 0.13025
                noise, noisy_latents, timesteps = train_util.get_noise_noisy_latents_and_timesteps(
                    noise_scheduler, latents)
                with accelerator.autocast():
                    noise_pred = unet(noisy_latents, timesteps, text_embedding,  # expect: TCK210
                                      added_cond_kwargs={"text_embeds": vector_embedding[:, :1280],
                                                         "time_ids": vector_embedding[:, 1280:1286]}).sample
                loss = F.mse_loss(noise_pred.float(), noise.float(), reduction="mean")
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(unet.parameters(), 1.0)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad(set_to_none=True)
            if accelerator.sync_gradients:
                global_step += 1
        accelerator.print(f"epoch {epoch + 1}: step {global_step}")

    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        accelerator.unwrap_model(unet).save_pretrained(args.output_dir)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained_model_name_or_path", required=True)
    parser.add_argument("--output_dir", default="./sdxl-finetuned")
    parser.add_argument("--train_batch_size", type=int, default=1)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    parser.add_argument("--learning_rate", type=float, default=1e-6)
    parser.add_argument("--max_train_epochs", type=int, default=10)
    train(parser.parse_args())
