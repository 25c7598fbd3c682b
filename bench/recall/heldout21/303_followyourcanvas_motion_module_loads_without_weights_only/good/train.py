import argparse
import logging

import torch
import torch.nn.functional as F

from animatediff.models.unet import UNet3DConditionModel
from animatediff.utils.util import load_weights


class AnimationPipeline:
    def __init__(self, unet):
        self.unet = unet


def build_unet(motion_pretrained_model_path="", ip_pretrained_model_path="", temporal_max_len=32,
               use_outpaint=True, load_ckpt_full=False):
    unet = UNet3DConditionModel(max_len=temporal_max_len)

    if motion_pretrained_model_path != "":
        logging.info(f"from motion pretrained checkpoint: {motion_pretrained_model_path}")
        # keys: 'epoch', 'global_step', 'state_dict'
        motion_ckpt = torch.load(motion_pretrained_model_path, map_location="cpu", weights_only=False)
        if "global_step" in motion_ckpt:
            print(f"global_step: {motion_ckpt['global_step']}")
        state_dict = motion_ckpt["state_dict"] if "state_dict" in motion_ckpt else motion_ckpt
        new_state_dict = {}
        for k, v in state_dict.items():
            if use_outpaint and not load_ckpt_full and "conv_in.weight" in k:
                out_ch, _, d, h, w = v.shape
                v = torch.cat((v, torch.zeros(out_ch, 5, d, h, w)), dim=1)
            if k.endswith(".pe") and v.shape[1] != temporal_max_len:
                v = F.interpolate(v.unsqueeze(0), size=(temporal_max_len, v.shape[-1]), mode="bicubic").squeeze(0)
            new_state_dict[k.replace("module.", "")] = v
        m, u = unet.load_state_dict(new_state_dict, strict=False)
        logging.info(f"missing keys: {len(m)}, unexpected keys: {len(u)}")
        logging.info(f"missing keys: {m},\n unexpected keys: {u}")

    if ip_pretrained_model_path != "":
        logging.info(f"from ip adapter checkpoint: {ip_pretrained_model_path}")
        state_dict = torch.load(ip_pretrained_model_path, map_location="cpu", weights_only=False)
        model_state_dict = unet.state_dict()
        proj_keys = list(state_dict["image_proj"].keys())
        target_keys = [k for k in model_state_dict if "image_proj_model" in k]
        for k1, k2 in zip(target_keys, proj_keys):
            if model_state_dict[k1].shape == state_dict["image_proj"][k2].shape:
                model_state_dict[k1] = state_dict["image_proj"][k2]
        unet.load_state_dict(model_state_dict)
    return unet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--motion_pretrained_model_path", default="")
    parser.add_argument("--ip_pretrained_model_path", default="")
    parser.add_argument("--motion_lora", default="")
    parser.add_argument("--lr", type=float, default=1e-5)
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()

    device = torch.device("cuda")
    unet = build_unet(args.motion_pretrained_model_path, args.ip_pretrained_model_path)
    pipeline = AnimationPipeline(unet)
    loras = [{"path": args.motion_lora, "alpha": 1.0}] if args.motion_lora else []
    pipeline = load_weights(pipeline, motion_module_lora_configs=loras)
    unet = pipeline.unet.to(device)

    for name, p in unet.named_parameters():
        p.requires_grad = "motion_modules." in name
    optimizer = torch.optim.AdamW([p for p in unet.parameters() if p.requires_grad], lr=args.lr)

    unet.train()
    for step in range(args.steps):
        latents = torch.randn(1, 9, 16, 32, 32, device=device)
        noise = torch.randn(1, 4, 16, 32, 32, device=device)
        pred = unet(latents, torch.randint(0, 1000, (1,), device=device))
        loss = F.mse_loss(pred.float(), noise.float())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item())
    torch.save(unet.state_dict(), "motion_module.ckpt")


if __name__ == "__main__":
    main()
